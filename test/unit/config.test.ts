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

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: ' ' }).port).toBe(3000)
  })

  it('refuses to start in production without SMTP_URL: mail would otherwise go to the log, links included', () => {
    let caught: unknown
    try {
      loadConfig({ NODE_ENV: 'production' })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).variable).toBe('SMTP_URL')
    expect((caught as ConfigError).message).toMatch(/^Invalid configuration: SMTP_URL is required when NODE_ENV=production/)
    expect(loadConfig({ NODE_ENV: 'production', SMTP_URL: 'smtp://mail.example.com:587' }).production).toBe(true)
    expect(loadConfig({}).production).toBe(false)
  })
})
