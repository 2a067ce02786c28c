/**
 * The attributes of the jobs' spans: OpenTelemetry's messaging conventions (still in development,
 * so not in @opentelemetry/semantic-conventions' stable set: named here), and the try number.
 */
export const JOB_ATTRIBUTES = {
  system: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  destination: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  attempt: 'momentum.job.attempt',
} as const
