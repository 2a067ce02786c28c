import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react'
import { NETWORK_ERROR_MESSAGE } from '#web/lib/api-error'
import { toast } from '#web/lib/toast'

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
  /**
   * Loads the validator (it brings zod): started when a field of the form first gets focus, and
   * awaited on submit, so it never weighs on the page's first load (docs/decisions/052).
   */
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
  // The form element, for moving focus to its first invalid field.
  const [formElement, setFormElement] = useState<HTMLFormElement | null>(null)
  const initialRef = useRef(initialValues)
  // A prerendered form (docs/decisions/052) can be typed in, or filled by a password manager, before
  // the app hydrates it. Hydration leaves what the fields hold; when the form element is attached,
  // that becomes the form's values before anything renders them again (which would empty the fields).
  const attachForm = useCallback((element: HTMLFormElement | null) => {
    setFormElement(element)
    if (!element) return
    const typed: Partial<Record<string, string>> = {}
    for (const [name, initial] of Object.entries(initialRef.current)) {
      const field = element.elements.namedItem(name)
      const isText = field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement
      if (typeof initial === 'string' && isText && field.value !== initial) typed[name] = field.value
    }
    if (Object.keys(typed).length > 0) setValues((previous) => ({ ...previous, ...typed }))
  }, [])
  const loadRef = useRef(loadValidator)
  const loading = useRef<Promise<Validator<T>> | null>(null)

  /** Starts loading the validator once (again after a failure); resolves to it. */
  function loadValidation(): Promise<Validator<T>> {
    loading.current ??= loadRef.current().then(
      (loaded) => {
        setValidator(() => loaded)
        return loaded
      },
      (error: unknown) => {
        loading.current = null // tried again on the next focus or submit
        throw error
      },
    )
    return loading.current
  }

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
          validate = await loadValidation()
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
  /** The <form>'s own props: its element (for focus), no browser validation, the validator loaded on first focus. */
  const formProps = {
    ref: attachForm,
    noValidate: true,
    onFocus: () => void loadValidation().catch(() => undefined),
  }
  return { fields, errors, setServerError, handleSubmit, formProps }
}
