import { availableParallelism } from 'node:os'
import { hash, verify } from '@node-rs/argon2'
import { AppError } from '../lib/app-error'

/**
 * argon2id with OWASP's parameters (19 MiB, 2 iterations, 1 lane). @node-rs/argon2 hashes on the
 * libuv thread pool, so the event loop keeps serving requests.
 */
// 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/**
 * At most (cores − 1) hashes at once: a burst of logins queues here instead of taking every core,
 * so the event loop keeps answering everyone else quickly.
 */
const MAX_CONCURRENT = Math.max(1, availableParallelism() - 1)
let running = 0
const waiting: Array<() => void> = []

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve))
  running += 1
  try {
    return await work()
  } finally {
    running -= 1
    waiting.shift()?.()
  }
}

export const hashPassword = (password: string) => limited(() => hash(password, OPTIONS))

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await limited(() => verify(passwordHash, password))
  } catch {
    return false
  }
}

let dummyHash: Promise<string> | undefined
/** Spends the same hashing time for an unknown email as for a real one. */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummyHash ??= hashPassword('not-a-real-password-but-the-same-cost')
  await verifyPassword(await dummyHash, password)
  return false
}

let common: Promise<Set<string>> | undefined
/** The most common passwords (@zxcvbn-ts's common dictionary, ~49,000 entries), loaded once. */
async function commonPasswords(): Promise<Set<string>> {
  common ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common']))
  return common
}

/** Refuses a password that is among the most common ones (case-insensitive). */
export async function assertNotCommonPassword(password: string, field = 'password'): Promise<void> {
  const list = await commonPasswords()
  if (list.has(password.toLowerCase())) {
    throw new AppError('COMMON_PASSWORD', undefined, { field })
  }
}
