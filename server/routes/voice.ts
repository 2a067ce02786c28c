import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import websocket from '@fastify/websocket'
import type { FastifyRequest, onRequestHookHandler, onSendHookHandler, preHandlerAsyncHookHandler } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ErrorBodySchema, ERRORS } from '#common/errors'
import { VOICE_MAX_TEXT_FRAME_BYTES, VOICE_PROTOCOL_VERSION } from '#common/voice'
import { AppError, forbidden } from '../lib/app-error'

const VOICE_PATH = '/api/voice'
const NOT_FOUND = JSON.stringify({ error: { code: 'NOT_FOUND', message: ERRORS.NOT_FOUND.message } })

/** Connection attempts per client address a minute (the open sockets are capped by the gateway). */
const VOICE_CONNECTS_PER_MINUTE = 30

const DESCRIPTION =
  `A WebSocket (send \`Upgrade: websocket\`), protocol version ${VOICE_PROTOCOL_VERSION}. Refused before the upgrade with the ` +
  'error JSON: 401 without a session, 403 PAYMENT_REQUIRED when not paid, 403 FORBIDDEN when `Origin` is not the app, ' +
  '429 past the open sockets allowed per client network or per person, or the attempts a minute per address; a plain GET answers 426. Binary frames: PCM16 mono 16 kHz audio (20 ms, ' +
  '640 bytes; at most 4 KB, else close 1009; faster than 1.5x real time closes 1008). Text frames: one JSON message each ' +
  '(at most 8 KB, else close 1009): the browser sends start, end, text, mute, watch-calls, end-phone-call; the server sends ' +
  'hello, status, transcript, speech, interrupted, ended, error, phone-call, phone-transcript (common/voice.ts; README). ' +
  'Too many frames close 1008; no audio for 60 s ends the call (no-audio), as do the 30-minute ceiling (max-duration) and the ' +
  "plan's voice minutes running out (monthly-limit, daily-limit); a start with none left is the error USAGE_LIMIT_REACHED."

/**
 * GET /api/voice: the realtime voice gateway's socket (server/services/voice). WebSocket support is
 * registered here, in this plugin only: @fastify/websocket's hooks run on this route's requests,
 * not on every request of the app. Who may connect is decided before the upgrade, with the
 * contract's error JSON: the same-origin check (the CSRF hook skips GET), the session and the paid
 * rule (the route's `paid` guard), the open sockets per client network and per person, the
 * attempts per address. Then the socket is the gateway's.
 */
const voiceRoutes: FastifyPluginAsyncZod = async (app) => {
  const { voice } = app.services
  // A sign-out on any server closes its sockets here too.
  await voice.hearSignOuts().catch((error: unknown) => app.log.warn({ err: error }, 'voice: cannot hear sign-outs from other servers; sockets check their session each minute'))

  await app.register(websocket, {
    options: { maxPayload: VOICE_MAX_TEXT_FRAME_BYTES, perMessageDeflate: false, clientTracking: false },
    // A socket's errors end in its 'close', which the gateway handles (a frame over maxPayload:
    // ws closes it with 1009). The default handler would cut the socket before the close frame.
    errorHandler: (error, _socket, request) => request.log.debug({ code: (error as { code?: string }).code }, 'voice socket error'),
    // Stopping: every call ends ('server-restarting') and every socket closes, within bounds.
    preClose: async () => voice.shutdown(),
  })

  // @fastify/websocket listens to every upgrade request of the server and routes it through the
  // app; only a GET of this route may upgrade. Any other is answered 404 and its socket closed at
  // once (routed, a plain route would answer it and leave the socket open for good).
  const routeUpgrade = app.server.listeners('upgrade').at(-1) as ((request: IncomingMessage, socket: Duplex, head: Buffer) => void) | undefined
  if (routeUpgrade) {
    app.server.removeListener('upgrade', routeUpgrade)
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = (request.url ?? '').split('?')[0]
      if (request.method === 'GET' && (path === VOICE_PATH || path === `${VOICE_PATH}/`)) return routeUpgrade(request, socket, head)
      socket.on('error', () => {})
      socket.end(`HTTP/1.1 404 Not Found\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(NOT_FOUND)}\r\nconnection: close\r\n\r\n${NOT_FOUND}`)
    })
  }

  // Every answer but the upgrade itself is a refusal, after which the connection is closed (a
  // refused upgrade's socket is destroyed once answered): `Connection: close` says so, so a
  // keep-alive client asks again on a new connection instead of being hung up on.
  const closeAfterRefusal: onSendHookHandler = (_request, reply, payload, done) => {
    reply.header('connection', 'close')
    done(null, payload)
  }
  // Browsers always send Origin on a WebSocket handshake: only the app's own may connect.
  const sameOrigin: onRequestHookHandler = (request, _reply, done) => {
    done(request.headers.origin === app.config.appOrigin ? undefined : forbidden('Cross-site requests are not allowed.'))
  }
  // After the guard: a signed-in, paid caller, within the open sockets allowed per client network
  // and per person (on every server): the slot taken here is the socket's once it is upgraded.
  const slots = new WeakMap<FastifyRequest, string>()
  const withinLimits: preHandlerAsyncHookHandler = async (request) => {
    // A plain GET is answered 426 and takes no socket's place.
    if (!request.ws) return
    const admission = await voice.admit(request.ip, request.user.id)
    if ('refused' in admission) {
      throw new AppError(
        'RATE_LIMITED',
        admission.refused === 'user' ? 'Too many voice connections are open for your account. Close a tab and try again.' : 'Too many voice connections from this address. Close one and try again.',
      )
    }
    slots.set(request, admission.slot)
  }

  app.route({
    method: 'GET',
    url: VOICE_PATH,
    schema: {
      operationId: 'openVoiceGateway',
      tags: ['voice'],
      summary: 'The realtime voice gateway (WebSocket): talk to the coach; the Vapi key and URLs never leave the server',
      description: DESCRIPTION,
      response: {
        101: z.undefined().describe('Switching Protocols: the socket is open (the server says hello first)'),
        401: ErrorBodySchema,
        403: ErrorBodySchema,
        426: ErrorBodySchema,
        429: ErrorBodySchema,
      },
    },
    config: { auth: 'paid', cache: 'no-store', rateLimit: { max: VOICE_CONNECTS_PER_MINUTE, timeWindow: '1 minute' } },
    onRequest: sameOrigin,
    preHandler: withinLimits,
    onSend: closeAfterRefusal,
    handler: async () => {
      throw new AppError('UPGRADE_REQUIRED')
    },
    wsHandler: (socket, request) => {
      voice.accept(socket, { userId: request.user.id, sessionId: request.session!.id, ip: request.ip, slot: slots.get(request) ?? '' })
    },
  })
}

export default voiceRoutes
