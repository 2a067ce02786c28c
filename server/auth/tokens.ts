import { sha256 } from '@oslojs/crypto/sha2'
import { constantTimeEqual } from '@oslojs/crypto/subtle'
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding'
import { randomBytes } from 'node:crypto'

/** `bytes` random bytes from the CSPRNG, as lower-case base32 (cookie- and URL-safe). */
export function randomToken(bytes: number): string {
  return encodeBase32LowerCaseNoPadding(new Uint8Array(randomBytes(bytes)))
}

export function hashSecret(secret: string): Uint8Array {
  return sha256(new TextEncoder().encode(secret))
}

export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const hash = hashSecret(secret)
  return hash.length === storedHash.length && constantTimeEqual(hash, storedHash)
}
