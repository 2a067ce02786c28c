import websocket from '@fastify/websocket'
import fp from 'fastify-plugin'

/** WebSocket support for the voice gateway (/api/voice). Frames are small JSON messages. */
export default fp(
  async (app) => {
    await app.register(websocket, { options: { maxPayload: 64 * 1024 } })
  },
  { name: 'websocket' },
)
