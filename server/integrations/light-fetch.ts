import { request, type Dispatcher } from 'undici'

/**
 * A `fetch` for an SDK whose every answer is read whole (`text()` or `json()`), on undici's
 * `request` API and a dispatcher of our own. Node's `fetch` wraps every request and answer in
 * WHATWG streams, which costs about as much CPU as the rest of a dial; a minute's burst of dials is
 * on time only if each costs little. It answers with the members an SDK reads of a `Response`
 * (status, headers, url, text, json, arrayBuffer) and no body stream: not for streamed answers.
 * Errors keep fetch's meaning: an aborted request rejects with an `AbortError`, a failed
 * connection with the network error.
 */
export function lightFetch(dispatcher: Dispatcher): typeof fetch {
  const lightweight = async (input: Parameters<typeof fetch>[0], init: RequestInit = {}): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers.entries()) : Array.isArray(init.headers) ? Object.fromEntries(init.headers) : init.headers
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') throw new TypeError('lightFetch sends string bodies only')
    const answer = await request(url, {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers,
      body: init.body ?? null,
      signal: init.signal ?? undefined,
      dispatcher,
    })
    const text = init.method === 'HEAD' ? '' : await answer.body.text()
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(answer.headers)) {
      if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item)
      else if (value !== undefined) responseHeaders.set(name, value)
    }
    const status = answer.statusCode
    const response = {
      status,
      statusText: '',
      ok: status >= 200 && status < 300,
      headers: responseHeaders,
      redirected: false,
      type: 'basic',
      url,
      body: null,
      bodyUsed: false,
      text: async () => text,
      json: async () => JSON.parse(text) as unknown,
      arrayBuffer: async () => new TextEncoder().encode(text).buffer,
    }
    return response as unknown as Response
  }
  return lightweight as typeof fetch
}
