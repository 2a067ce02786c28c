/**
 * Phones (docs/decisions/060): which number an account has proven it holds, the do-not-contact
 * list that a STOP puts a number on, and the guard every code text passes. The calls and the texts
 * read the first two in their own statements (provenSql, stoppedSql), so nothing reaches a number
 * that is not proven or that texted STOP.
 */
export { numberDigest } from './numbers'
export { isStopped, startNumber, stopNumber, stoppedSql } from './do-not-contact'
export { proofOf, provenSql, recordProof } from './proofs'
export { admitCode, stoppedMessage } from './codes'
