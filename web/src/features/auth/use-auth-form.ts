import { useForm, type DefaultValues, type FieldValues, type Path } from 'react-hook-form'
import { NETWORK_ERROR_MESSAGE } from '#web/lib/api-error'
import { isResolverUnavailable, useFocusFirstInvalid, type LazyResolver } from '#web/lib/forms'
import { toast } from '#web/lib/toast'

type UseAuthFormOptions<V extends FieldValues, T> = {
  /** Only for fields the page does not prerender: a prerendered field keeps what was typed before hydration. */
  defaultValues?: DefaultValues<V>
  /** The form's schema (lazyResolver): loaded when a field of the form first gets focus, awaited on submit. */
  resolver: LazyResolver<V, T>
}

/**
 * The auth forms on react-hook-form (docs/decisions/067): no message before the first submit, then
 * every message kept current while the user edits (`reValidateMode: 'onChange'`; a field whose rule
 * reads another one names it in `deps`); a server's message under its field until that field
 * changes; focus on the first invalid field after a refused submit or a server's refusal.
 *
 * The text fields are uncontrolled (`register`): a prerendered form (docs/decisions/052) can be
 * typed in, or filled by a password manager, before the app hydrates it, and a field without a
 * default value takes what it holds when it registers.
 */
export function useAuthForm<V extends FieldValues, T>({ defaultValues, resolver }: UseAuthFormOptions<V, T>) {
  const form = useForm<V, unknown, T>({
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    criteriaMode: 'firstError',
    shouldFocusError: false,
    defaultValues,
    resolver,
  })
  const { formRef, focusFirstInvalid } = useFocusFirstInvalid()

  /** The form's submit handler: `onValid` gets the schema's output. */
  const submit = (onValid: (data: T) => void) =>
    form.handleSubmit(onValid, (errors) => {
      if (isResolverUnavailable(errors)) {
        void toast({ title: 'Something went wrong', description: NETWORK_ERROR_MESSAGE, variant: 'destructive' })
      } else {
        focusFirstInvalid()
      }
    })

  /** Shows a server's message under its field and focuses it. */
  const setServerError = (name: Path<V>, message: string) => {
    form.setError(name, { type: 'server', message })
    focusFirstInvalid()
  }

  /** The <form>'s own props: its element (for focus), no browser validation, the resolver loaded on first focus. */
  const formProps = { ref: formRef, noValidate: true, onFocus: resolver.preload }
  return { form, submit, setServerError, formProps }
}
