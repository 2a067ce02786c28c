import { useEffect, useRef, useState, type FormEvent } from 'react'
import { NETWORK_ERROR_MESSAGE } from '../../lib/api-error'
import { toast } from '../../lib/toast'

export type FieldErrors = Partial<Record<string, string>>

/** What a bound field (components/form-fields.tsx) reads and writes of its form. */
export type FormFields<V> = {
  values: V
  errors: FieldErrors
  setValue: <K extends keyof V & string>(name: K, value: V[K]) => void
}
export type ValidationResult<T> = { success: true; data: T } | { success: false; errors: FieldErrors }
export type Validator<T> = (values: unknown) => ValidationResult<T>

export type UseFormOptions<V, T> = {
  initialValues: V
  /** Loads the validator (it brings zod): started when the form mounts, awaited on the first submit. */
  loadValidator: () => Promise<Validator<T>>
}

/**
 * Small form state for the auth forms: values, the validator's messages shown from the first
 * submit on (and kept current while the user edits), server messages per field (cleared when that
 * field changes), and focus moved to the first invalid field after a refused submit.
 */
export function useForm<V extends Record<string, unknown>, T>({ initialValues, loadValidator }: UseFormOptions<V, T>) {
  const [values, setValues] = useState(initialValues)
  const [submitted, setSubmitted] = useState(false)
  const [serverErrors, setServerErrors] = useState<FieldErrors>({})
  const [validator, setValidator] = useState<Validator<T> | null>(null)
  const [focusRequest, setFocusRequest] = useState(0)
  // A callback ref (the state setter): the form element, for moving focus to its first invalid field.
  const [formElement, setFormElement] = useState<HTMLFormElement | null>(null)
  const loadRef = useRef(loadValidator)

  useEffect(() => {
    let active = true
    loadRef.current().then(
      (loaded) => {
        if (active) setValidator(() => loaded)
      },
      () => undefined, // retried on submit
    )
    return () => {
      active = false
    }
  }, [])

  useEffect(() => {
    if (focusRequest > 0) formElement?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [focusRequest, formElement])

  const validation = submitted && validator ? validator(values) : undefined
  const errors: FieldErrors = { ...serverErrors, ...(validation && !validation.success ? validation.errors : {}) }

  function setValue<K extends keyof V & string>(name: K, value: V[K]) {
    setValues((previous) => ({ ...previous, [name]: value }))
    setServerErrors((previous) => {
      if (previous[name] === undefined) return previous
      const next = { ...previous }
      delete next[name]
      return next
    })
  }

  /** Shows a server's message under its field and focuses it. */
  function setServerError(field: keyof V & string, message: string) {
    setServerErrors((previous) => ({ ...previous, [field]: message }))
    setFocusRequest((n) => n + 1)
  }

  function handleSubmit(onValid: (data: T) => void) {
    return async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault()
      setSubmitted(true)
      let validate = validator
      if (!validate) {
        try {
          validate = await loadRef.current()
        } catch {
          void toast({ title: 'Something went wrong', description: NETWORK_ERROR_MESSAGE, variant: 'destructive' })
          return
        }
      }
      const result = validate(values)
      if (!result.success) {
        setFocusRequest((n) => n + 1)
        return
      }
      onValid(result.data)
    }
  }

  const fields: FormFields<V> = { values, errors, setValue }
  return { fields, errors, setServerError, handleSubmit, setFormElement }
}
