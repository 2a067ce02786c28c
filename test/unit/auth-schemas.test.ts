import { describe, expect, it } from 'vitest'
import { formatPhone, LoginBodySchema, ResetPasswordBodySchema, safeReturnTo, SignupBodySchema } from '#common/auth'

const valid = {
  fullName: 'Grace Hopper',
  email: 'grace@example.com',
  phoneNumber: '(202) 523-4567',
  password: 'compiler-rainbow-kettle',
  confirmPassword: 'compiler-rainbow-kettle',
  communicationConsent: true,
  termsAccepted: true,
}

function firstIssue(schema: typeof SignupBodySchema | typeof LoginBodySchema | typeof ResetPasswordBodySchema, input: unknown) {
  const result = schema.safeParse(input)
  if (result.success) return undefined
  const issue = result.error.issues[0]!
  return { field: issue.path.join('.'), message: issue.message }
}

describe('login rules (spec 1 §5)', () => {
  it.each([
    [{ email: '', password: 'x' }, 'email', 'Email is required'],
    [{ email: '   ', password: 'x' }, 'email', 'Email is required'],
    [{ email: 'grace@', password: 'x' }, 'email', 'Please enter a valid email'],
    [{ email: 'grace example.com', password: 'x' }, 'email', 'Please enter a valid email'],
    [{ email: 'grace@example.com', password: '' }, 'password', 'Password is required'],
  ])('%o → %s: %s', (input, field, message) => {
    expect(firstIssue(LoginBodySchema, input)).toEqual({ field, message })
  })

  it('trims and lower-cases the email', () => {
    expect(LoginBodySchema.parse({ email: '  Grace@Example.COM ', password: 'x' }).email).toBe('grace@example.com')
  })
})

describe('email addresses: one plain address, nothing a mailer could read as a name or a list', () => {
  it.each([
    'x<attacker@evil.com>',
    'victim@example.com,',
    'victim@example.com, attacker@evil.com',
    'victim@example.com;attacker@evil.com',
    'victim,attacker@evil.com',
    '"Victim" <victim@example.com>',
    '"quoted"@example.com',
    'victim@example.com>',
    '(comment)victim@example.com',
    'vic tim@example.com',
    'victim@example.com\nBcc: attacker@evil.com',
    '.victim@example.com',
    'vic..tim@example.com',
    'victim.@example.com',
    'victim@example',
    'victim@-example.com',
    'victim@example-.com',
    'victim@example..com',
    'victim@.example.com',
    'victim@example.c',
    'victim@[127.0.0.1]',
    `${'a'.repeat(65)}@example.com`,
    `victim@${'a'.repeat(64)}.com`,
    'vïctim@example.com',
  ])('refuses %j', (email) => {
    expect(firstIssue(LoginBodySchema, { email, password: 'x' })).toEqual({ field: 'email', message: 'Please enter a valid email' })
  })

  it.each([
    'grace@example.com',
    'grace.hopper+news@example.co.uk',
    "o'brien@example.com",
    'x_y-z@sub.example-site.io',
    'person@xn--80ak6aa92e.com',
    '1234@123.example.net',
  ])('accepts %j', (email) => {
    expect(LoginBodySchema.safeParse({ email, password: 'x' }).success).toBe(true)
  })
})

describe('sign-up rules (spec 1 §5)', () => {
  it.each([
    [{ fullName: '' }, 'fullName', 'Full name is required'],
    [{ fullName: '   ' }, 'fullName', 'Full name is required'],
    [{ email: '' }, 'email', 'Email is required'],
    [{ email: 'nope' }, 'email', 'Please enter a valid email'],
    [{ phoneNumber: '' }, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
    [{ phoneNumber: '(555) 123-456' }, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
    [{ phoneNumber: '+1 (555) 123-45678' }, 'phoneNumber', 'Please enter a valid 10-digit phone number'],
    [{ password: '', confirmPassword: '' }, 'password', 'Password is required'],
    [{ password: 'seven77', confirmPassword: 'seven77' }, 'password', 'Password must be at least 8 characters'],
    [{ confirmPassword: '' }, 'confirmPassword', 'Please confirm your password'],
    [{ confirmPassword: 'compiler-rainbow-kettles' }, 'confirmPassword', 'Passwords do not match'],
    [{ communicationConsent: false }, 'communicationConsent', 'You must agree to receive messages'],
    [{ termsAccepted: false }, 'termsAccepted', 'You must agree to the terms of service'],
  ])('%o → %s: %s', (overrides, field, message) => {
    expect(firstIssue(SignupBodySchema, { ...valid, ...overrides })).toEqual({ field, message })
  })

  it('keeps the phone as 10 digits and the email trimmed and lower-case', () => {
    const parsed = SignupBodySchema.parse({ ...valid, email: ' Grace@Example.com ', fullName: '  Grace Hopper ' })
    expect(parsed.phoneNumber).toBe('2025234567')
    expect(parsed.email).toBe('grace@example.com')
    expect(parsed.fullName).toBe('Grace Hopper')
  })

  it('accepts exactly 8 characters and at most 256', () => {
    expect(SignupBodySchema.safeParse({ ...valid, password: 'abcdefgh', confirmPassword: 'abcdefgh' }).success).toBe(true)
    const long = 'a'.repeat(257)
    expect(firstIssue(SignupBodySchema, { ...valid, password: long, confirmPassword: long })?.field).toBe('password')
  })

  it('checks the reset form the same way', () => {
    expect(firstIssue(ResetPasswordBodySchema, { token: 'a'.repeat(40), password: 'short', confirmPassword: 'short' })).toEqual({
      field: 'password',
      message: 'Password must be at least 8 characters',
    })
  })
})

describe('formatPhone', () => {
  it.each([
    ['', ''],
    ['5', '(5'],
    ['555', '(555'],
    ['5551', '(555) 1'],
    ['555123', '(555) 123'],
    ['5551234', '(555) 123-4'],
    ['2025234567', '(202) 523-4567'],
    ['20252345678', '(202) 523-4567'],
    ['(202) 523-4567', '(202) 523-4567'],
  ])('%s → %s', (input, output) => {
    expect(formatPhone(input)).toBe(output)
    expect(formatPhone(input).length).toBeLessThanOrEqual(14)
  })
})

describe('safeReturnTo', () => {
  it.each([
    ['/courses', '/courses'],
    ['/chat?x=1#top', '/chat?x=1#top'],
    ['/courses/abc', '/courses/abc'],
  ])('keeps the same-site path %s', (input, output) => {
    expect(safeReturnTo(input)).toBe(output)
  })

  it.each(['//evil.example', 'https://evil.example/x', '/\\evil.example', 'javascript:alert(1)', 'courses', '', '/\tx', '\\\\evil'])(
    'ignores %s',
    (input) => {
      expect(safeReturnTo(input)).toBeUndefined()
    },
  )
})
