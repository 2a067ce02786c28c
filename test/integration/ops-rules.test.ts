/**
 * What operators run around the metrics (ops/, docs/runbooks/): the alerting rules load and pass
 * their promtool tests, which fail when an alert stops firing or fires on healthy series; the
 * Prometheus config loads them, and so does a real Prometheus server, which evaluates every rule
 * without an error and parses every query of the Grafana dashboard; every alert has a run-book;
 * the compose profile wires Prometheus and Grafana to the server's and the worker's metrics port.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { freePort, ROOT } from '../helpers/process'
import { promtoolPath, runPromtool } from '../helpers/promtool'

type Rule = { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
type RuleFile = { groups: Array<{ name: string; rules: Rule[] }> }
type AlertTest = { eval_time: string; alertname: string; exp_alerts?: unknown[] | null }
type TestFile = { rule_files: string[]; tests: Array<{ name?: string; alert_rule_test?: AlertTest[] }> }
type Panel = { type: string; title: string; datasource?: { uid: string }; targets?: Array<{ expr: string; datasource?: { uid: string } }> }
type ComposeService = {
  image?: string
  profiles?: string[]
  environment?: Record<string, string | number>
  ports?: string[]
  volumes?: string[]
  healthcheck?: { test: string[] }
  depends_on?: unknown
}

const OPS = join(ROOT, 'ops')
const readYaml = <T>(path: string): T => parse(readFileSync(path, 'utf8')) as T

const rulesFile = readYaml<RuleFile>(join(OPS, 'alerts.yml'))
const testFile = readYaml<TestFile>(join(OPS, 'alerts.test.yml'))
const alerts = rulesFile.groups.flatMap((group) => group.rules.filter((rule): rule is Rule & { alert: string } => rule.alert !== undefined))
const alertNames = [...new Set(alerts.map((rule) => rule.alert))]
const alertTests = testFile.tests.flatMap((group) => group.alert_rule_test ?? [])

/** The metrics the server and the worker serve (issue 34), the names the rules and dashboard may read. */
const SERVED_METRICS = new Set([
  'momentum_http_request_duration_seconds',
  'momentum_calls_due_total',
  'momentum_calls_dialled_total',
  'momentum_calls_ended_total',
  'momentum_call_lateness_seconds',
  'momentum_vapi_lines_in_use',
  'momentum_vapi_lines_limit',
  'momentum_webhook_events_total',
  'momentum_webhook_event_lag_seconds',
  'momentum_webhook_events_dead',
  'momentum_jobs_waiting',
  'momentum_jobs_oldest_waiting_seconds',
  'momentum_job_duration_seconds',
  'momentum_job_failures_total',
  'momentum_texts_sent_total',
  'momentum_texts_refused_total',
  'momentum_consent_revocations_total',
  'momentum_emails_sent_total',
  'momentum_voice_sessions',
  'momentum_voice_frames_dropped_total',
])
const HISTOGRAM_SERIES = /_(bucket|count|sum)$/

/** The momentum_* metric names a PromQL expression reads (a histogram's series by its name). */
function metricsRead(expr: string): string[] {
  return [...expr.matchAll(/\bmomentum_[a-z0-9_]+/g)].map(([name]) => {
    const base = name.replace(HISTOGRAM_SERIES, '')
    return SERVED_METRICS.has(base) ? base : name
  })
}

/** The alerts promtool reports failing in its output: all their failed cases, or only those expecting silence. */
function failingAlerts(output: string, only: 'any' | 'silent' = 'any'): string[] {
  const pattern = only === 'silent' ? /alertname: ([A-Za-z0-9_]+), time: [^,]+,\s*exp:\[\]/g : /alertname: ([A-Za-z0-9_]+), time:/g
  return [...new Set([...output.matchAll(pattern)].map((match) => match[1]!))].sort()
}

/** Days (d) and hours (h) of an eval_time such as `3d5h` or `40m`, in minutes. */
const minutesOf = (duration: string) =>
  [...duration.matchAll(/(\d+)([dhms])/g)].reduce((sum, [, n, unit]) => sum + Number(n) * { d: 1440, h: 60, m: 1, s: 1 / 60 }[unit as 'd' | 'h' | 'm' | 's'], 0)

/**
 * Runs the tests of ops/alerts.test.yml against `rules` in place of ops/alerts.yml, with their
 * evaluation interval changed and only the test groups `keep` keeps, when given.
 */
function testRulesWith(rules: RuleFile, options: { evaluationInterval?: string; keep?: (group: TestFile['tests'][number]) => boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mc-rules-'))
  try {
    writeFileSync(join(dir, 'alerts.yml'), stringify(rules))
    const tests = readYaml<TestFile & { evaluation_interval?: string }>(join(OPS, 'alerts.test.yml'))
    if (options.evaluationInterval) tests.evaluation_interval = options.evaluationInterval
    if (options.keep) tests.tests = tests.tests.filter(options.keep)
    writeFileSync(join(dir, 'alerts.test.yml'), stringify(tests))
    return runPromtool(['test', 'rules', join(dir, 'alerts.test.yml')])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** ops/alerts.yml with every alert's expression replaced and the recording rules left out (no alert reads them then). */
function withEveryAlert(expr: string): RuleFile {
  return { groups: rulesFile.groups.map((group) => ({ ...group, rules: group.rules.filter((rule) => rule.alert).map((rule) => ({ ...rule, expr })) })) }
}

describe('the alerting rules (ops/alerts.yml)', () => {
  it('pass promtool check rules', () => {
    const result = runPromtool(['check', 'rules', 'ops/alerts.yml'])
    expect(result.stderr + result.stdout).toContain('SUCCESS')
    expect(result.status).toBe(0)
  })

  it('pass their promtool tests (ops/alerts.test.yml)', { timeout: 600_000 }, () => {
    const result = runPromtool(['test', 'rules', 'ops/alerts.test.yml'])
    expect(result.stdout + result.stderr).toContain('SUCCESS')
    expect(result.status).toBe(0)
  })

  it('have, for every alert, a case where it fires and one where it stays silent', () => {
    expect(alertNames.length).toBeGreaterThanOrEqual(10)
    const firing = new Set(alertTests.filter((test) => (test.exp_alerts ?? []).length > 0).map((test) => test.alertname))
    const silent = new Set(alertTests.filter((test) => (test.exp_alerts ?? []).length === 0).map((test) => test.alertname))
    expect(alertNames.filter((name) => !firing.has(name))).toEqual([])
    expect(alertNames.filter((name) => !silent.has(name))).toEqual([])
    // And no test names an alert that does not exist (it would pass by never seeing it fire).
    expect([...new Set(alertTests.map((test) => test.alertname))].filter((name) => !alertNames.includes(name))).toEqual([])
  })

  it('fail their tests when an alert never fires, or fires on healthy series', { timeout: 600_000 }, () => {
    // An alert that never fires fails its firing cases. Nothing fires at any interval, so the
    // replay of days of history is taken 15 minutes at a time.
    const never = testRulesWith(withEveryAlert('vector(0) > 1'), { evaluationInterval: '15m' })
    expect(never.status).not.toBe(0)
    expect(failingAlerts(never.stdout + never.stderr)).toEqual([...alertNames].sort())

    // An alert that always fires fails the cases that expect it silent (the groups replaying days
    // of history are left out: each alert has a silent case within the day).
    const always = testRulesWith(withEveryAlert('vector(1)'), {
      keep: (group) => (group.alert_rule_test ?? []).every((test) => minutesOf(test.eval_time) <= 1440),
    })
    expect(always.status).not.toBe(0)
    expect(failingAlerts(always.stdout + always.stderr, 'silent')).toEqual([...alertNames].sort())
  })

  it('give every alert a severity, a summary, a description and a run-book that exists and names it', () => {
    for (const rule of alerts) {
      const where = `alert ${rule.alert}`
      expect(['critical', 'warning'], where).toContain(rule.labels?.severity)
      expect(rule.annotations?.summary, where).toBeTruthy()
      expect(rule.annotations?.description, where).toBeTruthy()
      const runbook = rule.annotations?.runbook_url ?? ''
      expect(runbook, where).toMatch(/^docs\/runbooks\/[a-z0-9-]+\.md$/)
      expect(existsSync(join(ROOT, runbook)), `${where}: ${runbook} is missing`).toBe(true)
      expect(readFileSync(join(ROOT, runbook), 'utf8').split('\n')[0], `${where}: ${runbook}'s title`).toContain(rule.alert)
    }
  })

  it('have a run-book for each alert and no other, all listed in docs/runbooks/README.md', () => {
    const runbooks = readdirSync(join(ROOT, 'docs', 'runbooks')).filter((name) => name !== 'README.md')
    const linked = new Set(alerts.map((rule) => rule.annotations!.runbook_url!.replace('docs/runbooks/', '')))
    expect(runbooks.sort()).toEqual([...linked].sort())
    const index = readFileSync(join(ROOT, 'docs', 'runbooks', 'README.md'), 'utf8')
    for (const name of alertNames) expect(index, `README.md lists ${name}`).toContain(`[${name}]`)
    for (const runbook of runbooks) expect(index, `README.md links ${runbook}`).toContain(`(${runbook})`)
  })

  it('read only metrics the server and the worker serve', () => {
    const read = rulesFile.groups.flatMap((group) => group.rules.flatMap((rule) => metricsRead(rule.expr)))
    expect(read.length).toBeGreaterThan(0)
    expect(read.filter((name) => !SERVED_METRICS.has(name))).toEqual([])
  })
})

describe('the Prometheus config (ops/prometheus.yml)', () => {
  it('passes promtool check config, with the rules it loads', () => {
    const result = runPromtool(['check', 'config', 'ops/prometheus.yml'])
    expect(result.stdout + result.stderr).toContain('SUCCESS: 1 rule files found')
    expect(result.status).toBe(0)
  })

  it('scrapes the server and every worker on the compose services\' metrics port, honouring their labels', () => {
    const config = readYaml<{ rule_files: string[]; scrape_configs: Array<Record<string, unknown>> }>(join(OPS, 'prometheus.yml'))
    expect(config.rule_files).toEqual(['alerts.yml'])
    const jobs = new Map(config.scrape_configs.map((job) => [job.job_name as string, job]))
    expect([...jobs.keys()].sort()).toEqual(['momentum-server', 'momentum-worker'])
    for (const job of jobs.values()) expect(job.honor_labels).toBe(true)
    expect(jobs.get('momentum-server')!.static_configs).toEqual([{ targets: ['server:9464'] }])
    expect(jobs.get('momentum-worker')!.dns_sd_configs).toMatchObject([{ names: ['worker'], type: 'A', port: 9464 }])
  })
})

describe('a Prometheus server on the rules, and the Grafana dashboard', () => {
  let prometheus: ChildProcess | undefined
  let output = ''
  let base = ''
  let dataDir = ''

  beforeAll(async () => {
    // Debian's package puts the server beside promtool. The config is ops/prometheus.yml's rules
    // evaluated every second, with no scrape target (nothing here serves them).
    const binary = join(dirname(realpathSync(promtoolPath())), 'prometheus')
    dataDir = mkdtempSync(join(tmpdir(), 'mc-prometheus-'))
    writeFileSync(join(dataDir, 'prometheus.yml'), stringify({ global: { evaluation_interval: '1s' }, rule_files: [join(OPS, 'alerts.yml')] }))
    const port = await freePort()
    base = `http://127.0.0.1:${port}`
    prometheus = spawn(binary, [`--config.file=${join(dataDir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    prometheus.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    prometheus.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    await until(async () => (await fetch(`${base}/-/ready`).catch(() => null))?.ok === true, 'Prometheus ready')
  }, 60_000)

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve))
      prometheus.kill('SIGTERM')
      await exited
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  /** Polls `check` every 100 ms until it holds; fails after 30 s with Prometheus's output. */
  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 30_000
    while (!(await check())) {
      if (prometheus?.exitCode !== null) throw new Error(`Prometheus exited before ${what}:\n${output}`)
      if (Date.now() > deadline) throw new Error(`no ${what} within 30 s:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  type ApiRule = { name: string; type: 'alerting' | 'recording'; health: string; lastError?: string; lastEvaluation: string }

  it('loads every rule and evaluates each without an error', async () => {
    let rules: ApiRule[] = []
    await until(async () => {
      const body = (await (await fetch(`${base}/api/v1/rules`)).json()) as { data: { groups: Array<{ rules: ApiRule[] }> } }
      rules = body.data.groups.flatMap((group) => group.rules)
      return rules.length > 0 && rules.every((rule) => !rule.lastEvaluation.startsWith('0001-'))
    }, 'evaluation of every rule')
    const loaded = rulesFile.groups.flatMap((group) => group.rules)
    expect(rules).toHaveLength(loaded.length)
    const names = (type: ApiRule['type']) => rules.filter((rule) => rule.type === type).map((rule) => rule.name).sort()
    expect(names('alerting')).toEqual(alerts.map((rule) => rule.alert).sort())
    expect(names('recording')).toEqual(loaded.flatMap((rule) => (rule.record ? [rule.record] : [])).sort())
    expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([])
  })

  it("parses every query of the dashboard, each reading only served metrics or the rules' records", async () => {
    const dashboard = JSON.parse(readFileSync(join(OPS, 'grafana', 'dashboards', 'momentum.json'), 'utf8')) as { uid: string; panels: Panel[] }
    const targets = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ panel, target })))
    expect(targets.length).toBeGreaterThan(20)
    const records = new Set(rulesFile.groups.flatMap((group) => group.rules.flatMap((rule) => (rule.record ? [rule.record] : []))))
    const failures: string[] = []
    for (const { panel, target } of targets) {
      if (panel.datasource?.uid !== 'prometheus' || target.datasource?.uid !== 'prometheus') failures.push(`${panel.title}: not on the provisioned data source`)
      const expr = target.expr.replaceAll('$__rate_interval', '1m')
      if (expr.includes('$')) failures.push(`${panel.title}: an unknown variable in ${target.expr}`)
      for (const name of metricsRead(expr)) if (!SERVED_METRICS.has(name)) failures.push(`${panel.title}: ${name} is not served`)
      for (const [name] of expr.matchAll(/\bmomentum:[a-z0-9_:]+/g)) if (!records.has(name)) failures.push(`${panel.title}: ${name} is not recorded`)
      const answer = await fetch(`${base}/api/v1/query?${new URLSearchParams({ query: expr })}`)
      if (!answer.ok) failures.push(`${panel.title}: ${target.expr}: ${JSON.stringify(await answer.json())}`)
    }
    expect(failures).toEqual([])
  })
})

describe('Grafana provisioning (ops/grafana)', () => {
  it('provides the Prometheus data source the dashboard names, and loads the dashboards folder', () => {
    const datasources = readYaml<{ datasources: Array<{ uid: string; type: string; url: string }> }>(join(OPS, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'))
    expect(datasources.datasources).toMatchObject([{ uid: 'prometheus', type: 'prometheus', url: 'http://prometheus:9090' }])
    const providers = readYaml<{ providers: Array<{ type: string; options: { path: string } }> }>(join(OPS, 'grafana', 'provisioning', 'dashboards', 'momentum.yml'))
    expect(providers.providers).toMatchObject([{ type: 'file', options: { path: '/var/lib/grafana/dashboards' } }])
  })
})

describe("docker-compose.yml's observability profile", () => {
  const compose = readYaml<{ services: Record<string, ComposeService> }>(join(ROOT, 'docker-compose.yml'))
  const { server, worker, prometheus, grafana } = compose.services

  it('serves the server\'s and the worker\'s metrics on 9464 inside the compose network only', () => {
    for (const service of [server!, worker!]) {
      expect(service.environment).toMatchObject({ METRICS_PORT: 9464, METRICS_HOST: '0.0.0.0' })
      expect((service.ports ?? []).filter((port) => port.includes('9464'))).toEqual([])
    }
  })

  it("checks the server's readiness", () => {
    expect(server!.healthcheck!.test.join(' ')).toContain("fetch('http://127.0.0.1:3000/readyz')")
  })

  it('runs Prometheus on ops/prometheus.yml and ops/alerts.yml, and Grafana on ops/grafana, only in that profile', () => {
    expect(prometheus).toMatchObject({ profiles: ['observability'] })
    expect(prometheus!.image).toMatch(/^prom\/prometheus:/)
    expect(prometheus!.volumes).toEqual(expect.arrayContaining(['./ops/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './ops/alerts.yml:/etc/prometheus/alerts.yml:ro']))
    expect(grafana).toMatchObject({ profiles: ['observability'] })
    expect(grafana!.image).toMatch(/^grafana\/grafana:/)
    expect(grafana!.volumes).toEqual(
      expect.arrayContaining(['./ops/grafana/provisioning:/etc/grafana/provisioning:ro', './ops/grafana/dashboards:/var/lib/grafana/dashboards:ro']),
    )
    const withoutProfile = Object.entries(compose.services).filter(([, service]) => !service.profiles).map(([name]) => name)
    expect(withoutProfile.sort()).toEqual(['mailpit', 'postgres', 'redis', 'server', 'worker'])
  })
})
