/**
 * A coach's photo (docs/decisions/080) on a real PostgreSQL: the coach uploads an image, the server
 * keeps only its own re-encoding (a 512-pixel WebP square, upright, without the file's metadata),
 * and the coach's members see it with the profile, served with its version as ETag and cached for
 * good under a versioned URL. What is not a JPEG, PNG or WebP image, whatever its Content-Type, is
 * refused naming `photo`, as are other types (415) and bodies over 5 MB (413); only coaches upload.
 */
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CoachProfileSchema, COACH_PHOTO_MAX_BYTES, MyCoachResponseSchema } from '#common/coach'
import { ErrorBodySchema } from '#common/errors'
import { coachPhotos } from '#server/db/schema'
import { PHOTO_SIZE } from '#server/services/coach-photos'
import { buildTestApp } from '../helpers/app'
import { createTestDatabase, type TestDatabase } from '../helpers/db'
import { signedInStaff, type StaffMember } from '../helpers/staff'
import { signedInUser, type SignedIn } from '../helpers/users'

let database: TestDatabase
let app: FastifyInstance
let dana: StaffMember
let member: SignedIn

beforeAll(async () => {
  database = await createTestDatabase()
  app = await buildTestApp({ database })
  dana = await signedInStaff(app, ['coach'], { fullName: 'Dana Lee' })
  // The only coach: the Elite member gets Dana.
  member = await signedInUser(app, { paid: 'elite' })
})

afterAll(async () => {
  await app?.close()
  await database?.destroy()
})

type Headers = Record<string, string>
const PHOTO = '/api/staff/coach/profile/photo'
const upload = (headers: Headers, body: Buffer, contentType: string) => app.inject({ method: 'PUT', url: PHOTO, headers: { ...headers, 'content-type': contentType }, payload: body })
const get = (url: string, headers: Headers) => app.inject({ method: 'GET', url, headers })
const errorOf = (response: { json(): unknown }) => ErrorBodySchema.parse(response.json()).error
const myCoach = async () => MyCoachResponseSchema.parse((await get('/api/coach', member.headers)).json())

/**
 * A camera's photo as a PNG: 1200×800, red on its left half and blue on its right, with EXIF that
 * says to show it turned a quarter clockwise (orientation 6: upright, red is on top) and names the
 * camera, its owner and where it was taken.
 */
async function cameraPhoto(): Promise<Buffer> {
  const red = await sharp({ create: { width: 600, height: 800, channels: 3, background: '#ff0000' } }).png().toBuffer()
  const png = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#0000ff' } })
    .composite([{ input: red, left: 0, top: 0 }])
    .withMetadata({ orientation: 6 })
    .withExifMerge({ IFD0: { Copyright: 'x', Make: 'TestCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '40/1 26/1 46/1' } })
    .png()
    .toBuffer()
  // The file really carries them.
  const sent = await sharp(png).metadata()
  expect({ format: sent.format, orientation: sent.orientation, camera: sent.exif?.toString('latin1').includes('TestCam') }).toEqual({ format: 'png', orientation: 6, camera: true })
  return png
}

/** The colour of one pixel of an image. */
async function pixel(image: Buffer, x: number, y: number): Promise<'red' | 'blue' | 'other'> {
  const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true })
  const [r, g, b] = data.subarray((y * info.width + x) * info.channels)
  if (r! > 200 && g! < 40 && b! < 40) return 'red'
  if (b! > 200 && r! < 40 && g! < 40) return 'blue'
  return 'other'
}

describe("a coach's photo", () => {
  it('is stored as the server drew it again (512-pixel WebP, upright, no metadata), and the members see it', async () => {
    const saved = await upload(dana.headers, await cameraPhoto(), 'image/png')
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.headers['cache-control']).toBe('no-store')
    const profile = CoachProfileSchema.parse(saved.json())

    const [row] = await database.db.select().from(coachPhotos).where(eq(coachPhotos.userId, dana.user.id))
    const stored = Buffer.from(row!.image)
    const version = createHash('sha256').update(stored).digest('hex').slice(0, 16)
    expect(row).toMatchObject({ contentType: 'image/webp', version, bytes: stored.length })
    expect(profile.photoUrl).toBe(`/api/coaches/${dana.user.id}/photo?v=${version}`)
    const drawn = await sharp(stored).metadata()
    expect({ format: drawn.format, width: drawn.width, height: drawn.height }).toEqual({ format: 'webp', width: PHOTO_SIZE, height: PHOTO_SIZE })
    // No EXIF (camera, owner, place), no orientation left to apply, no colour profile: nothing of the file's.
    expect({ exif: drawn.exif, orientation: drawn.orientation, icc: drawn.icc, xmp: drawn.xmp }).toEqual({ exif: undefined, orientation: undefined, icc: undefined, xmp: undefined })
    // Turned as the EXIF said: the red half is on top.
    expect([await pixel(stored, 256, 20), await pixel(stored, 256, 490)]).toEqual(['red', 'blue'])

    // The coach's own profile, and their member's view of it, name the photo.
    expect(CoachProfileSchema.parse((await get('/api/staff/coach/profile', dana.headers)).json()).photoUrl).toBe(profile.photoUrl)
    const mine = await myCoach()
    expect(mine).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id, fullName: 'Dana Lee', photoUrl: profile.photoUrl } })

    // The member fetches it: the stored bytes, cached for good under the versioned URL.
    const served = await get(profile.photoUrl!, member.headers)
    expect(served.statusCode).toBe(200)
    expect(served.rawPayload.equals(stored)).toBe(true)
    expect(served.headers).toMatchObject({
      'content-type': 'image/webp',
      'x-content-type-options': 'nosniff',
      etag: `"${version}"`,
      'cache-control': 'private, max-age=31536000, immutable',
    })
    // Asked again with its ETag: not modified.
    const again = await get(profile.photoUrl!, { ...member.headers, 'if-none-match': served.headers.etag as string })
    expect(again.statusCode).toBe(304)
    expect(again.rawPayload.length).toBe(0)
    // Without the version, or with an old one: checked each time, never kept as it is.
    for (const url of [`/api/coaches/${dana.user.id}/photo`, `/api/coaches/${dana.user.id}/photo?v=0123456789abcdef`]) {
      const unversioned = await get(url, member.headers)
      expect({ status: unversioned.statusCode, cache: unversioned.headers['cache-control'] }).toEqual({ status: 200, cache: 'private, no-cache' })
    }
  })

  it('needs a session, and is a 404 for a coach without one or an id that is not one', async () => {
    expect((await get(`/api/coaches/${dana.user.id}/photo`, {})).statusCode).toBe(401)
    const other = await signedInStaff(app, ['coach'], { fullName: 'Kai Moss' })
    for (const id of [other.user.id, 'not-an-id']) {
      const response = await get(`/api/coaches/${id}/photo`, member.headers)
      expect({ status: response.statusCode, code: errorOf(response).code, field: errorOf(response).field }).toEqual({ status: 404, code: 'NOT_FOUND', field: 'coachId' })
    }
  })

  it('refuses what is not a JPEG, PNG or WebP image whatever its Content-Type (400), other types (415) and bodies over 5 MB (413), naming `photo`', async () => {
    const before = await database.db.select({ version: coachPhotos.version }).from(coachPhotos).where(eq(coachPhotos.userId, dana.user.id))
    const gif = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#00ff00' } }).gif().toBuffer()
    // A PNG header announcing 48 megapixels, in 140 KB: refused before the pixels are decoded.
    const bomb = await sharp({ create: { width: 8000, height: 6000, channels: 3, background: '#000000' } }).png({ compressionLevel: 9 }).toBuffer()
    const png = await cameraPhoto()
    const cases: Array<[string, Buffer, string, number, string]> = [
      ['text as PNG', Buffer.from('Not an image at all.\n'), 'image/png', 400, 'That file is not a JPEG, PNG or WebP image.'],
      ['a GIF as JPEG', gif, 'image/jpeg', 400, 'That file is not a JPEG, PNG or WebP image.'],
      ['half a PNG', png.subarray(0, png.length / 2), 'image/png', 400, 'That file is not a JPEG, PNG or WebP image.'],
      ['an empty body', Buffer.alloc(0), 'image/webp', 400, 'That file is not a JPEG, PNG or WebP image.'],
      ['48 megapixels', bomb, 'image/png', 400, 'That image is too large: at most 40 megapixels.'],
      ['text/plain', Buffer.from('hello'), 'text/plain', 415, 'Send the photo as a JPEG, PNG or WebP image.'],
      ['JSON', Buffer.from('{}'), 'application/json', 415, 'Send the photo as a JPEG, PNG or WebP image.'],
      ['an image as text', png, 'text/plain; charset=utf-8', 415, 'Send the photo as a JPEG, PNG or WebP image.'],
      ['over 5 MB', Buffer.alloc(COACH_PHOTO_MAX_BYTES + 1), 'image/png', 413, 'A photo must be at most 5 MB.'],
    ]
    for (const [name, body, type, status, message] of cases) {
      const response = await upload(dana.headers, body, type)
      expect({ name, status: response.statusCode, error: errorOf(response) }).toEqual({
        name,
        status,
        error: { code: status === 400 ? 'VALIDATION_FAILED' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'UNSUPPORTED_MEDIA_TYPE', message, field: 'photo' },
      })
    }
    // The photo before them is still the one.
    expect(await database.db.select({ version: coachPhotos.version }).from(coachPhotos).where(eq(coachPhotos.userId, dana.user.id))).toEqual(before)
  })

  it('is changed only by a coach: a member gets the staff guard’s 404, other staff 403', async () => {
    const png = await cameraPhoto()
    const asMember = await upload(member.headers, png, 'image/png')
    expect({ status: asMember.statusCode, error: errorOf(asMember) }).toEqual({ status: 404, error: { code: 'NOT_FOUND', message: `No such API route: PUT ${PHOTO}` } })
    // Not even told the type is wrong.
    expect((await upload(member.headers, Buffer.from('hello'), 'text/plain')).statusCode).toBe(404)
    const support = await signedInStaff(app, ['support'])
    expect((await upload(support.headers, png, 'image/png')).statusCode).toBe(403)
    expect((await app.inject({ method: 'DELETE', url: PHOTO, headers: member.headers })).statusCode).toBe(404)
    // Nothing stored for them.
    expect(await database.db.select({ userId: coachPhotos.userId }).from(coachPhotos).where(eq(coachPhotos.userId, member.user.id))).toEqual([])
  })

  it('is removed by the coach: the profile and the member see none, and its URL is a 404', async () => {
    const { photoUrl } = CoachProfileSchema.parse((await get('/api/staff/coach/profile', dana.headers)).json())
    expect(photoUrl).not.toBeNull()
    const removed = await app.inject({ method: 'DELETE', url: PHOTO, headers: dana.headers })
    expect(removed.statusCode).toBe(200)
    expect(CoachProfileSchema.parse(removed.json()).photoUrl).toBeNull()
    expect(await myCoach()).toMatchObject({ status: 'assigned', coach: { coachId: dana.user.id, photoUrl: null } })
    expect((await get(photoUrl!, member.headers)).statusCode).toBe(404)
    expect(await database.db.select().from(coachPhotos).where(eq(coachPhotos.userId, dana.user.id))).toEqual([])
    // Removing none is no error.
    expect((await app.inject({ method: 'DELETE', url: PHOTO, headers: dana.headers })).statusCode).toBe(200)
  })
})
