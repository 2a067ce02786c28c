import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '#server/config'

describe('loadConfig', () => {
  it('runs on the embedded defaults with nothing set', () => {
    const config = loadConfig({})
    expect(config.port).toBe(3000)
    expect(config.appUrl).toBe('http://localhost:3000')
    expect(config.databaseUrl).toBeUndefined()
    expect(config.dataDir).toMatch(/\.data$/)
    expect(config.redisUrl).toBeUndefined()
    expect(config.stripe).toBeUndefined()
    expect(config.vapi).toBeUndefined()
    expect(config.secureCookies).toBe(false)
    expect(config.logLevel).toBe('info')
  })

  it('derives APP_URL from PORT and secure cookies from an https APP_URL', () => {
    expect(loadConfig({ PORT: '4100' }).appUrl).toBe('http://localhost:4100')
    const config = loadConfig({ APP_URL: 'https://coach.example.com/' })
    expect(config.appUrl).toBe('https://coach.example.com')
    expect(config.appOrigin).toBe('https://coach.example.com')
    expect(config.secureCookies).toBe(true)
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['APP_URL', 'not a url'],
    ['DATABASE_URL', 'mysql://x@y/z'],
    ['REDIS_URL', 'http://localhost'],
    ['SMTP_URL', 'mail.example.com'],
    ['LOG_LEVEL', 'loud'],
    ['SMS_OPT_IN_NUMBER', '555-1234'],
    ['STRIPE_SECRET_KEY', 'nope'],
    ['VAPI_WEBHOOK_AUTH', 'bearer'],
    ['TWILIO_ACCOUNT_SID', 'SK0123'],
    ['TWILIO_AUTH_TOKEN', 'short'],
    ['TWILIO_API_URL', 'ftp://twilio'],
  ])('refuses a bad %s (%s) with an error naming it', (name, value) => {
    let caught: unknown
    try {
      loadConfig({ [name]: value })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).variable).toBe(name)
    expect((caught as ConfigError).message).toContain(name)
    expect((caught as ConfigError).message).not.toContain('\n')
  })

  it('needs both Twilio keys or none, and the sending number with them', () => {
    const sid = `AC${'ab12'.repeat(8)}`
    const token = 'f'.repeat(32)
    expect(loadConfig({}).twilio).toBeUndefined()
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: sid, SMS_OPT_IN_NUMBER: '+12025234567' })).toThrow(/TWILIO_AUTH_TOKEN/)
    expect(() => loadConfig({ TWILIO_AUTH_TOKEN: token, SMS_OPT_IN_NUMBER: '+12025234567' })).toThrow(/TWILIO_ACCOUNT_SID/)
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: token })).toThrow(/SMS_OPT_IN_NUMBER/)
    const config = loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: token, SMS_OPT_IN_NUMBER: '+12025234567', TWILIO_API_URL: 'http://127.0.0.1:9999' })
    expect(config.twilio).toEqual({ accountSid: sid, authToken: token, apiUrl: 'http://127.0.0.1:9999' })
    expect(config.smsOptInNumber).toBe('+12025234567')
    // A secret is never echoed in the error.
    expect(() => loadConfig({ TWILIO_AUTH_TOKEN: 'has a space in it', TWILIO_ACCOUNT_SID: sid })).toThrow(/^Invalid configuration: TWILIO_AUTH_TOKEN [^"]*$/)
  })

  it('needs all three Stripe keys or none', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_abc' })).toThrow(/STRIPE_PUBLISHABLE_KEY/)
    const config = loadConfig({
      STRIPE_SECRET_KEY: 'sk_test_abc',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_abc',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
    })
    expect(config.stripe).toEqual({
      secretKey: 'sk_test_abc',
      publishableKey: 'pk_test_abc',
      webhookSecret: 'whsec_abc',
      apiUrl: 'http://127.0.0.1:12111',
    })
  })

  it("reads how Vapi's webhooks are verified: the X-Vapi-Secret header unless VAPI_WEBHOOK_AUTH=hmac", () => {
    expect(loadConfig({ VAPI_API_KEY: 'vapi-key' }).vapi?.webhookAuth).toBe('secret')
    expect(loadConfig({ VAPI_API_KEY: 'vapi-key', VAPI_WEBHOOK_AUTH: 'hmac' }).vapi?.webhookAuth).toBe('hmac')
    expect(() => loadConfig({ VAPI_WEBHOOK_AUTH: 'bearer' })).toThrow(/VAPI_WEBHOOK_AUTH must be "secret" or "hmac" \(got "bearer"\)/)
  })

  it('refuses a VAPI_WEBHOOK_SECRET shorter than 32 characters, in one line naming it, never showing it', () => {
    const secret = (length: number) => 'k'.repeat(length)
    let caught: unknown
    try {
      loadConfig({ VAPI_API_KEY: 'vapi-key', VAPI_WEBHOOK_SECRET: secret(31) })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).variable).toBe('VAPI_WEBHOOK_SECRET')
    expect((caught as ConfigError).message).toMatch(/^Invalid configuration: VAPI_WEBHOOK_SECRET must be at least 32 characters/)
    expect((caught as ConfigError).message).not.toContain(secret(31))
    expect((caught as ConfigError).message).not.toContain('\n')
    expect(loadConfig({ VAPI_API_KEY: 'vapi-key', VAPI_WEBHOOK_SECRET: secret(32) }).vapi?.webhookSecret).toBe(secret(32))
  })

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: ' ' }).port).toBe(3000)
  })

  it('refuses to start in production without SMTP_URL: mail would otherwise go to the log, links included', () => {
    let caught: unknown
    try {
      loadConfig({ NODE_ENV: 'production', PAYMENT_MODE: 'testing' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).variable).toBe('SMTP_URL')
    expect((caught as ConfigError).message).toMatch(/^Invalid configuration: SMTP_URL is required when NODE_ENV=production/)
    expect(loadConfig({ NODE_ENV: 'production', PAYMENT_MODE: 'testing', SMTP_URL: 'smtp://mail.example.com:587' }).production).toBe(true)
    expect(loadConfig({}).production).toBe(false)
  })

  it('refuses Vapi phone calls without Twilio in production: no number could ever be proven (no code is logged there)', () => {
    const production = { NODE_ENV: 'production', PAYMENT_MODE: 'testing', SMTP_URL: 'smtp://mail.example.com:587' }
    const vapi = { VAPI_API_KEY: 'vapi-key', VAPI_ASSISTANT_ID: 'asst', VAPI_PHONE_NUMBER_ID: 'pn', VAPI_WEBHOOK_SECRET: 's'.repeat(32) }
    expect(() => loadConfig({ ...production, ...vapi })).toThrow(/^Invalid configuration: TWILIO_ACCOUNT_SID is required when NODE_ENV=production and VAPI_PHONE_NUMBER_ID is set/)
    const twilio = { TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 't'.repeat(32), SMS_OPT_IN_NUMBER: '+12025550100' }
    expect(loadConfig({ ...production, ...vapi, ...twilio }).vapi?.phoneNumberIds).toEqual(['pn'])
    // Outside production, codes go to the log: the embedded default works end to end.
    expect(loadConfig(vapi).twilio).toBeUndefined()
    // Voice in the browser alone (no phone number) needs no Twilio.
    expect(loadConfig({ ...production, VAPI_API_KEY: 'vapi-key', VAPI_ASSISTANT_ID: 'asst' }).vapi?.phoneNumberIds).toEqual([])
  })

  it('takes the caller numbers and the lines: VAPI_PHONE_NUMBER_IDS (a list; the single id still works), VAPI_MAX_CONCURRENT_CALLS, VAPI_LINES_RESERVED_FOR_APP, VAPI_DIALS_PER_SECOND', () => {
    const vapi = { VAPI_API_KEY: 'vapi-key', VAPI_ASSISTANT_ID: 'asst', VAPI_WEBHOOK_SECRET: 's'.repeat(32) }
    expect(loadConfig({ ...vapi, VAPI_PHONE_NUMBER_IDS: ' pn_a, pn_b ,pn_c' }).vapi?.phoneNumberIds).toEqual(['pn_a', 'pn_b', 'pn_c'])
    // The list wins over the single id.
    expect(loadConfig({ ...vapi, VAPI_PHONE_NUMBER_ID: 'pn_old', VAPI_PHONE_NUMBER_IDS: 'pn_a' }).vapi?.phoneNumberIds).toEqual(['pn_a'])
    expect(() => loadConfig({ ...vapi, VAPI_PHONE_NUMBER_IDS: 'pn a' })).toThrow(/VAPI_PHONE_NUMBER_IDS must be phone number ids separated by commas/)
    // A list of numbers dials too: the webhook secret is then required.
    expect(() => loadConfig({ VAPI_API_KEY: 'vapi-key', VAPI_PHONE_NUMBER_IDS: 'pn_a' })).toThrow(/VAPI_WEBHOOK_SECRET is required/)
    expect(loadConfig({}).callLines).toEqual({ maxConcurrentCalls: 10, reservedForApp: 2, dialsPerSecond: 1, dialsPerSecondPerNumber: 1 })
    expect(
      loadConfig({ VAPI_MAX_CONCURRENT_CALLS: '50', VAPI_LINES_RESERVED_FOR_APP: '0', VAPI_DIALS_PER_SECOND: '2.5', VAPI_DIALS_PER_SECOND_PER_NUMBER: '0.5' }).callLines,
    ).toEqual({ maxConcurrentCalls: 50, reservedForApp: 0, dialsPerSecond: 2.5, dialsPerSecondPerNumber: 0.5 })
    // The per-number pace follows the fleet's when it is not set.
    expect(loadConfig({ VAPI_DIALS_PER_SECOND: '3' }).callLines.dialsPerSecondPerNumber).toBe(3)
    expect(() => loadConfig({ VAPI_MAX_CONCURRENT_CALLS: '0' })).toThrow(/VAPI_MAX_CONCURRENT_CALLS must be a whole number from 1 to 100000 \(got "0"\)/)
    expect(() => loadConfig({ VAPI_DIALS_PER_SECOND: '0' })).toThrow(/VAPI_DIALS_PER_SECOND must be more than 0/)
    expect(() => loadConfig({ VAPI_DIALS_PER_SECOND: 'fast' })).toThrow(/VAPI_DIALS_PER_SECOND must be a number of calls a second/)
  })

  it('takes PHONE_CODES_DAILY_CAP, a whole number, 1,000 by default', () => {
    expect(loadConfig({}).phoneCodesDailyCap).toBe(1000)
    expect(loadConfig({ PHONE_CODES_DAILY_CAP: '250' }).phoneCodesDailyCap).toBe(250)
    expect(() => loadConfig({ PHONE_CODES_DAILY_CAP: '0' })).toThrow(/PHONE_CODES_DAILY_CAP must be a whole number/)
    expect(() => loadConfig({ PHONE_CODES_DAILY_CAP: 'lots' })).toThrow(/PHONE_CODES_DAILY_CAP/)
  })
})

describe('config errors never echo a secret', () => {
  it.each([
    ['DATABASE_URL', 'mysql://admin:hunter2-secret@db.internal/app'],
    ['REDIS_URL', 'http://:hunter2-secret@cache.internal'],
    ['SMTP_URL', 'mail://user:hunter2-secret@smtp.internal'],
    ['STRIPE_SECRET_KEY', 'hunter2-secret-sk_live'],
    ['STRIPE_PUBLISHABLE_KEY', 'hunter2-secret'],
    ['STRIPE_WEBHOOK_SECRET', 'hunter2-secret'],
    ['STRIPE_API_URL', 'ftp://hunter2-secret@x'],
    ['VAPI_API_URL', 'ftp://hunter2-secret@x'],
  ])('%s: names the variable and the rule, never the value', (name, value) => {
    let caught: unknown
    try {
      loadConfig({ [name]: value })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).message).toContain(name)
    expect((caught as ConfigError).message).not.toContain('hunter2')
  })

  it('shows the value of a variable that is not secret', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT .*\(got "eighty"\)/)
  })
})

describe('TRUST_PROXY', () => {
  it('believes only loopback by default', () => {
    expect(loadConfig({}).trustProxy).toEqual(['loopback'])
  })

  it('takes a hop count or a list of addresses, CIDRs and range names', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1)
    expect(loadConfig({ TRUST_PROXY: ' 10.0.0.2, 10.1.0.0/16 ,fd00::/8, loopback ' }).trustProxy).toEqual([
      '10.0.0.2',
      '10.1.0.0/16',
      'fd00::/8',
      'loopback',
    ])
  })

  it.each(['true', 'everyone', '10.0.0.0/33', '10.0.0.1/8/1', '999.1.1.1', '1, ,2'])('refuses %j', (value) => {
    expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError)
  })
})
