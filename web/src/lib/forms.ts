/**
 * What the app's react-hook-form forms share (docs/decisions/067): a resolver loaded on demand, so
 * zod and the schemas never weigh on a page's first load, and focus moved to the first invalid
 * field once its message is rendered.
 */
import { useCallback, useEffect, useRef, useState } from 'react'
import type { FieldErrors, FieldValues, Resolver } from 'react-hook-form'

/** The form's error (`root.resolver`) when its resolver could not be loaded (the network). */
const RESOLVER_UNAVAILABLE = 'resolver-unavailable'

/** Whether a refused submit was refused because the form's resolver could not be loaded. */
export const isResolverUnavailable = (errors: FieldErrors): boolean => errors.root?.resolver?.type === RESOLVER_UNAVAILABLE

export type LazyResolver<V extends FieldValues, T> = Resolver<V, unknown, T> & {
  /** Starts loading the resolver (e.g. when a field of the form first gets focus); never throws. */
  preload: () => void
}

/**
 * A resolver whose module (the zod resolver with its schema) is loaded on first use: on `preload`
 * or by the first validation, which waits for it. A load that fails is tried again the next time;
 * meanwhile a validation answers with only that error (isResolverUnavailable), so no field
 * shows a message and nothing is submitted.
 */
export function lazyResolver<V extends FieldValues, T>(load: () => Promise<Resolver<V, unknown, T>>): LazyResolver<V, T> {
  let loading: Promise<Resolver<V, unknown, T>> | undefined
  const start = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    }))
  const resolver: Resolver<V, unknown, T> = async (values, context, options) => {
    let resolve: Resolver<V, unknown, T>
    try {
      resolve = await start()
    } catch {
      // A form-level error (`root.…`, as setError('root.resolver') would make), which no field shows;
      // react-hook-form's type of `root` cannot be written as a literal for a generic V.
      return { values: {}, errors: { root: { resolver: { type: RESOLVER_UNAVAILABLE } } } as unknown as FieldErrors<V> }
    }
    return resolve(values, context, options)
  }
  return Object.assign(resolver, { preload: () => void start().catch(() => undefined) })
}

/**
 * Focus on the form's first invalid field (`aria-invalid="true"`, in document order) after the
 * render that shows the messages, so a screen reader reads the field with its message:
 * `formRef` goes on the <form>, `focusFirstInvalid()` asks for it.
 */
export function useFocusFirstInvalid() {
  const formRef = useRef<HTMLFormElement>(null)
  const [request, setRequest] = useState(0)
  useEffect(() => {
    if (request > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()
  }, [request])
  const focusFirstInvalid = useCallback(() => setRequest((n) => n + 1), [])
  return { formRef, focusFirstInvalid }
}
