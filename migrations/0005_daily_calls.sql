CREATE TABLE "coaching_call_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "coaching_call_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"call_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"type" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"detail" jsonb
);
--> statement-breakpoint
CREATE TABLE "vapi_webhook_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "vapi_webhook_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"dedupe_key" text NOT NULL,
	"vapi_call_id" text NOT NULL,
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"processed_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text
);
--> statement-breakpoint
ALTER TABLE "coaching_calls" DROP CONSTRAINT "coaching_calls_status_check";--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "evening_call_time" time;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "calls_paused_until" date;--> statement-breakpoint
ALTER TABLE "profiles" ADD COLUMN "calls_consent_revoked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "slot" text DEFAULT 'daily' NOT NULL;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "kind" text DEFAULT 'check_in' NOT NULL;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "local_date" date;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "attempt" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "time_zone" text;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "max_duration_seconds" integer;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "dial_lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "dialled_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "started_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "ended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "ended_reason" text;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "skip_reason" text;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "mood" smallint;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "energy" smallint;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "commitments" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "transcript" text;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "retry_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "report_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "coaching_call_events" ADD CONSTRAINT "coaching_call_events_call_id_coaching_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."coaching_calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coaching_call_events" ADD CONSTRAINT "coaching_call_events_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coaching_call_events_call_idx" ON "coaching_call_events" USING btree ("call_id","at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "vapi_webhook_events_dedupe_key" ON "vapi_webhook_events" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "vapi_webhook_events_pending_idx" ON "vapi_webhook_events" USING btree ("received_at") WHERE "vapi_webhook_events"."processed_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "coaching_calls_claim_key" ON "coaching_calls" USING btree ("user_id","slot","local_date","attempt");--> statement-breakpoint
CREATE INDEX "coaching_calls_retry_idx" ON "coaching_calls" USING btree ("retry_at") WHERE "coaching_calls"."retry_at" is not null;--> statement-breakpoint
CREATE INDEX "coaching_calls_live_idx" ON "coaching_calls" USING btree ("call_date") WHERE "coaching_calls"."completion_status" in ('scheduled', 'dialling', 'queued', 'ringing', 'in_progress');--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_slot_check" CHECK ("coaching_calls"."slot" in ('daily', 'evening', 'test'));--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_kind_check" CHECK ("coaching_calls"."kind" in ('check_in', 'goal_session'));--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_attempt_range" CHECK ("coaching_calls"."attempt" between 0 and 2);--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_mood_range" CHECK ("coaching_calls"."mood" is null or "coaching_calls"."mood" between 1 and 10);--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_energy_range" CHECK ("coaching_calls"."energy" is null or "coaching_calls"."energy" between 1 and 10);--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_status_check" CHECK ("coaching_calls"."completion_status" in ('scheduled', 'dialling', 'queued', 'ringing', 'in_progress', 'completed', 'no_answer', 'busy', 'voicemail', 'failed', 'cancelled', 'skipped'));