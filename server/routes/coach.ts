import type { FastifyError } from 'fastify'
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  AssignCoachBodySchema,
  AssignCoachResponseSchema,
  CoachesResponseSchema,
  CoachMemberDetailSchema,
  CoachMemberParamsSchema,
  CoachMembersResponseSchema,
  CoachNoteBodySchema,
  CoachNoteParamsSchema,
  CoachNoteResponseSchema,
  CoachParamsSchema,
  CoachProfileSchema,
  COACH_PHOTO_MAX_BYTES,
  COACH_PHOTO_TYPES,
  MyCoachResponseSchema,
  UpdateCapacityBodySchema,
  UpdateCoachProfileBodySchema,
} from '#common/coach'
import { ErrorBodySchema } from '#common/errors'
import { text } from '#common/text'
import { AppError } from '../lib/app-error'
import { perUserLimit } from '../lib/route-hooks'

const WRITE_LIMIT = perUserLimit('coach-write', 60)
/** Each upload is decoded and drawn again: far more than a person choosing a photo needs, a cap on a loop. */
const PHOTO_LIMIT = perUserLimit('coach-photo', 20)
const staffErrors = { 403: ErrorBodySchema, 404: ErrorBodySchema, 429: ErrorBodySchema }

/** The photo as uploaded: the raw bytes of the file (the parser of the upload's scope hands them over as they are). */
const PhotoUploadSchema = z.custom<Buffer>((value) => Buffer.isBuffer(value)).meta({ type: 'string', format: 'binary', description: `The image file itself, at most ${COACH_PHOTO_MAX_BYTES / 1024 / 1024} MB` })
const isPhotoType = (contentType: string | undefined) => (COACH_PHOTO_TYPES as readonly string[]).includes(contentType?.split(';')[0]?.trim().toLowerCase() ?? '')

/** Whether the request's If-None-Match names the ETag (a list, weak or not, or `*`). */
const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch?.split(',').some((tag) => {
    const value = tag.trim()
    return value === '*' || value.replace(/^W\//, '') === etag
  }) ?? false

/**
 * Elite's human coach (docs/decisions/078): the member's coach (GET /api/coach), the coach's
 * workspace (their own members only; role coach), and the admins' view of coaches' capacity and
 * assignments (role admin). The staff guard answers anyone else 404, or 403. A coach's photo
 * (docs/decisions/080) is kept apart from the coach service: these routes add its URL to the profile.
 */
const coachRoutes: FastifyPluginAsyncZod = async (app) => {
  const { coach } = app.services
  const photos = app.services.coachPhotos

  app.get(
    '/api/coach',
    {
      schema: {
        operationId: 'getMyCoach',
        tags: ['coach'],
        summary: "An Elite member's coach (assigned now to the coach with the most room if they have none): name, photo, bio, working hours and reply-time promise; or that one is being matched; or not-elite",
        response: { 200: MyCoachResponseSchema, 401: ErrorBodySchema, 429: ErrorBodySchema },
      },
      config: { auth: 'session', cache: 'no-store' },
    },
    async (request) => {
      const mine = await coach.mine(request.user.id)
      return mine.status === 'assigned' ? { ...mine, coach: await photos.withPhotoUrl(mine.coach) } : mine
    },
  )

  app.get(
    '/api/coaches/:coachId/photo',
    {
      schema: {
        operationId: 'getCoachPhoto',
        tags: ['coach'],
        summary:
          "A coach's photo (the profile's photoUrl): a WebP square, with its version as ETag (304 when If-None-Match names it). With ?v= the current version it may be cached for good; otherwise it is checked each time. 404 when the coach has none",
        params: CoachParamsSchema,
        querystring: z.object({ v: text().max(64).optional() }),
        response: {
          200: { description: 'The photo', content: { 'image/webp': { schema: z.custom<Buffer>().meta({ type: 'string', format: 'binary' }) } } },
          304: z.undefined().describe('Not modified: the version If-None-Match names is the current one'),
          400: ErrorBodySchema,
          401: ErrorBodySchema,
          404: ErrorBodySchema,
          429: ErrorBodySchema,
        },
      },
      config: { auth: 'session' },
    },
    async (request, reply) => {
      const photo = await photos.read(request.params.coachId)
      if (!photo) throw new AppError('NOT_FOUND', 'This coach has no photo.', { field: 'coachId' })
      const etag = `"${photo.version}"`
      // The versioned URL names these very bytes: a browser may keep them until the profile names
      // another. (nosniff, as on every API response, keeps a browser from reading them as anything else.)
      reply.header('etag', etag).header('cache-control', request.query.v === photo.version ? 'private, max-age=31536000, immutable' : 'private, no-cache')
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send()
      return reply.type(photo.contentType).send(Buffer.from(photo.image))
    },
  )

  app.get(
    '/api/staff/coach/profile',
    {
      schema: { operationId: 'getCoachProfile', tags: ['coach workspace'], summary: "The coach's own profile, as their members see it", response: { 200: CoachProfileSchema, ...staffErrors } },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => photos.withPhotoUrl(await coach.ownProfile(request.user.id)),
  )

  app.put(
    '/api/staff/coach/profile',
    {
      schema: {
        operationId: 'updateCoachProfile',
        tags: ['coach workspace'],
        summary: "Changes the coach's bio, working days and hours (in their time zone) and reply-time promise",
        body: UpdateCoachProfileBodySchema,
        response: { 200: CoachProfileSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => photos.withPhotoUrl(await coach.updateOwnProfile(request.user.id, request.body)),
  )

  // The upload in a scope of its own: every body reaches it as raw bytes (up to the limit), so the
  // staff guard answers before its type is looked at; a body too large is refused as it arrives.
  await app.register(async (scope) => {
    const upload = scope.withTypeProvider<ZodTypeProvider>()
    upload.removeAllContentTypeParsers()
    upload.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: COACH_PHOTO_MAX_BYTES }, (_request, body, done) => done(null, body))
    upload.setErrorHandler((error: FastifyError) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw new AppError('PAYLOAD_TOO_LARGE', 'A photo must be at most 5 MB.', { field: 'photo' })
      throw error // the app's error handler answers the rest
    })

    upload.put(
      '/api/staff/coach/profile/photo',
      {
        schema: {
          operationId: 'uploadCoachPhoto',
          tags: ['coach workspace'],
          summary:
            "Changes the coach's photo: the image file itself as the body (Content-Type image/jpeg, image/png or image/webp, else 415; at most 5 MB, else 413). The server decodes it and keeps only its own 512-pixel WebP square, without the file's metadata; 400 naming `photo` when the file is not such an image",
          consumes: [...COACH_PHOTO_TYPES],
          body: PhotoUploadSchema,
          response: { 200: CoachProfileSchema, 400: ErrorBodySchema, ...staffErrors, 413: ErrorBodySchema, 415: ErrorBodySchema },
        },
        bodyLimit: COACH_PHOTO_MAX_BYTES,
        config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: PHOTO_LIMIT },
        // After the staff guard (it runs first), before the body is validated.
        preValidation: async (request) => {
          if (!isPhotoType(request.headers['content-type'])) throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the photo as a JPEG, PNG or WebP image.', { field: 'photo' })
        },
      },
      async (request) => {
        await photos.save(request.user.id, request.body)
        return photos.withPhotoUrl(await coach.ownProfile(request.user.id))
      },
    )
  })

  app.delete(
    '/api/staff/coach/profile/photo',
    {
      schema: { operationId: 'deleteCoachPhoto', tags: ['coach workspace'], summary: "Removes the coach's photo (their members see their initials)", response: { 200: CoachProfileSchema, ...staffErrors } },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => {
      await photos.remove(request.user.id)
      return photos.withPhotoUrl(await coach.ownProfile(request.user.id))
    },
  )

  app.get(
    '/api/staff/coach/members',
    {
      schema: {
        operationId: 'listCoachMembers',
        tags: ['coach workspace'],
        summary: "The coach's current members: score, last completed call, and whether they went quiet",
        response: { 200: CoachMembersResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store' },
    },
    async (request) => ({ members: await coach.members(request.user.id) }),
  )

  app.get(
    '/api/staff/coach/members/:memberId',
    {
      schema: {
        operationId: 'getCoachMember',
        tags: ['coach workspace'],
        summary: "One of the coach's members: goals and scores, the last calls' summaries, commitments, weekly reports, the next call, and the coach's private notes; written to the member's audit log. 404 for anyone else's member",
        params: CoachMemberParamsSchema,
        response: { 200: CoachMemberDetailSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: { max: 120, timeWindow: '1 minute' } },
    },
    async (request) => coach.member(request.user.id, request.params.memberId),
  )

  app.post(
    '/api/staff/coach/members/:memberId/notes',
    {
      schema: {
        operationId: 'addCoachNote',
        tags: ['coach workspace'],
        summary: 'A private note on one of the coach\'s members: never shown to the member nor in their export',
        params: CoachMemberParamsSchema,
        body: CoachNoteBodySchema,
        response: { 201: CoachNoteResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => reply.code(201).send({ note: await coach.notes.add(request.user.id, request.params.memberId, request.body.body) }),
  )

  app.put(
    '/api/staff/coach/members/:memberId/notes/:noteId',
    {
      schema: {
        operationId: 'updateCoachNote',
        tags: ['coach workspace'],
        summary: 'Changes a private note',
        params: CoachNoteParamsSchema,
        body: CoachNoteBodySchema,
        response: { 200: CoachNoteResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => ({ note: await coach.notes.update(request.user.id, request.params.memberId, request.params.noteId, request.body.body) }),
  )

  app.delete(
    '/api/staff/coach/members/:memberId/notes/:noteId',
    {
      schema: {
        operationId: 'deleteCoachNote',
        tags: ['coach workspace'],
        summary: 'Deletes a private note',
        params: CoachNoteParamsSchema,
        response: { 204: z.undefined(), 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'coach', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request, reply) => {
      await coach.notes.remove(request.user.id, request.params.memberId, request.params.noteId)
      return reply.code(204).send()
    },
  )

  app.get(
    '/api/staff/admin/coaches',
    {
      schema: {
        operationId: 'listCoaches',
        tags: ['coach workspace'],
        summary: 'Every coach with their current members and capacity, and how many Elite members wait for a coach (admins)',
        response: { 200: CoachesResponseSchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store' },
    },
    async () => coach.admin.coaches(),
  )

  app.put(
    '/api/staff/admin/coaches/:coachId/capacity',
    {
      schema: {
        operationId: 'setCoachCapacity',
        tags: ['coach workspace'],
        summary: 'How many members a coach takes (0 to 500; admins). Members over it keep their coach; new ones go elsewhere',
        params: CoachParamsSchema,
        body: UpdateCapacityBodySchema,
        response: { 200: CoachesResponseSchema, 400: ErrorBodySchema, ...staffErrors },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coach.admin.setCapacity(request.params.coachId, request.body.maxMembers),
  )

  app.post(
    '/api/staff/admin/coach-assignments',
    {
      schema: {
        operationId: 'assignCoach',
        tags: ['coach workspace'],
        summary: "Gives an Elite member (by email) a coach; their earlier coach's assignment ends and stays in the history; written to the member's audit log (admins)",
        body: AssignCoachBodySchema,
        response: { 200: AssignCoachResponseSchema, 400: ErrorBodySchema, ...staffErrors, 409: ErrorBodySchema },
      },
      config: { auth: 'staff', role: 'admin', cache: 'no-store', rateLimit: WRITE_LIMIT },
    },
    async (request) => coach.admin.assign(request.user.id, request.body.memberEmail, request.body.coachId),
  )
}

export default coachRoutes
