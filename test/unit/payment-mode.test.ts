import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '#server/config'

/** Production needs real mail too; every case here sets it, so only PAYMENT_MODE decides. */
const MAIL = { SMTP_URL: 'smtp://mail.example.com:587' }
const STRIPE = { STRIPE_SECRET_KEY: 'sk_live_abc', STRIPE_PUBLISHABLE_KEY: 'pk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }

/** PAYMENT_MODE (the contract): production without Stripe keys refuses to start unless it is `testing`. */
describe('PAYMENT_MODE', () => {
  it('refuses production without Stripe keys, naming PAYMENT_MODE in one line', () => {
    let thrown: unknown
    try {
      loadConfig({ NODE_ENV: 'production', ...MAIL })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ConfigError)
    expect((thrown as ConfigError).variable).toBe('PAYMENT_MODE')
    expect((thrown as ConfigError).message).toMatch(/^Invalid configuration: PAYMENT_MODE must be "testing" to run in production without Stripe keys/)
    expect((thrown as ConfigError).message).not.toContain('\n')
  })

  it('allows testing mode in production when PAYMENT_MODE=testing', () => {
    expect(loadConfig({ NODE_ENV: 'production', PAYMENT_MODE: 'testing', ...MAIL }).stripe).toBeUndefined()
  })

  it('production with the Stripe keys needs nothing more; development and tests keep the embedded default', () => {
    expect(loadConfig({ NODE_ENV: 'production', ...STRIPE, ...MAIL }).stripe?.secretKey).toBe('sk_live_abc')
    expect(loadConfig({}).stripe).toBeUndefined()
    expect(loadConfig({ NODE_ENV: 'development' }).stripe).toBeUndefined()
    expect(loadConfig({ NODE_ENV: 'test' }).stripe).toBeUndefined()
  })

  it('accepts only "testing"', () => {
    expect(() => loadConfig({ PAYMENT_MODE: 'free' })).toThrow(/^Invalid configuration: PAYMENT_MODE must be "testing" or unset \(got "free"\)/)
    expect(loadConfig({ NODE_ENV: 'production', PAYMENT_MODE: '', ...STRIPE, ...MAIL }).stripe).toBeDefined()
  })
})
