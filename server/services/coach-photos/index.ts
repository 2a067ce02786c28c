/**
 * A coach's photo (docs/decisions/080). What a coach uploads is decoded and drawn again by the
 * server: a PHOTO_SIZE-pixel square, WebP, without any of the file's metadata (EXIF, GPS, the
 * camera), so the bytes that were sent are never stored nor served. It is kept in PostgreSQL with
 * the coach's account; its version (a hash of the stored bytes) is in its URL, so a browser keeps
 * it until it changes.
 */
import { createHash } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { isUuid } from '#common/uuid'
import type { Db } from '#server/db/client'
import { coachPhotos } from '#server/db/schema'
import { AppError } from '#server/lib/app-error'
import type { Clock } from '#server/lib/clock'

/** The side of the stored square, in pixels: twice the largest size the pages show it at. */
export const PHOTO_SIZE = 512
/**
 * An image whose header announces more pixels than this is refused before they are decoded: a
 * file of a few kilobytes can unpack to gigabytes (a decompression bomb).
 */
const MAX_INPUT_PIXELS = 40_000_000
/** What the bytes must turn out to be, whatever the request's Content-Type said. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp'])
const STORED_TYPE = 'image/webp'

const refused = (message: string, cause?: unknown) => new AppError('VALIDATION_FAILED', message, { field: 'photo', cause })
const notAnImage = (cause?: unknown) => refused('That file is not a JPEG, PNG or WebP image.', cause)

/** The URL of a coach's photo: a new photo is a new URL. */
const photoUrlOf = (coachId: string, version: string) => `/api/coaches/${coachId}/photo?v=${version}`

/**
 * The upload decoded (a damaged file is refused rather than half drawn), turned upright by its EXIF
 * orientation, cropped to the centre square and encoded as WebP: sharp writes no metadata unless
 * asked. sharp is loaded by the first upload, not by every start (docs/decisions/066).
 */
async function reencode(upload: Buffer): Promise<Buffer> {
  const { default: sharp } = await import('sharp')
  try {
    const image = sharp(upload, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
    const { format } = await image.metadata()
    if (!format || !ACCEPTED_FORMATS.has(format)) throw notAnImage()
    return await image.rotate().resize(PHOTO_SIZE, PHOTO_SIZE, { fit: 'cover' }).webp({ quality: 82 }).timeout({ seconds: 10 }).toBuffer()
  } catch (error) {
    if (error instanceof AppError) throw error
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw refused('That image is too large: at most 40 megapixels.', error)
    throw notAnImage(error)
  }
}

export function createCoachPhotos({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** Stores the coach's photo, made from the upload (400 naming `photo` when it is not a JPEG, PNG or WebP image), in place of theirs. */
    async save(coachId: string, upload: Buffer): Promise<void> {
      const image = await reencode(upload)
      const photo = { image, contentType: STORED_TYPE, version: createHash('sha256').update(image).digest('hex').slice(0, 16), bytes: image.length, updatedAt: clock.now() }
      await db
        .insert(coachPhotos)
        .values({ userId: coachId, ...photo })
        .onConflictDoUpdate({ target: coachPhotos.userId, set: photo })
    },

    async remove(coachId: string): Promise<void> {
      await db.delete(coachPhotos).where(eq(coachPhotos.userId, coachId))
    },

    /** The coach's photo as stored, or null (none, or an id that is not one). */
    async read(coachId: string): Promise<{ image: Uint8Array; contentType: string; version: string } | null> {
      if (!isUuid(coachId)) return null
      const [row] = await db.select({ image: coachPhotos.image, contentType: coachPhotos.contentType, version: coachPhotos.version }).from(coachPhotos).where(eq(coachPhotos.userId, coachId)).limit(1)
      return row ?? null
    },

    /** The coach's profile with the URL of their photo (null when they have none). */
    async withPhotoUrl<T extends { coachId: string }>(profile: T): Promise<T & { photoUrl: string | null }> {
      const [row] = await db.select({ version: coachPhotos.version }).from(coachPhotos).where(eq(coachPhotos.userId, profile.coachId)).limit(1)
      return { ...profile, photoUrl: row ? photoUrlOf(profile.coachId, row.version) : null }
    },
  }
}
