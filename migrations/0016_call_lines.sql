ALTER TABLE "coaching_calls" ADD COLUMN "dial_wait_reason" text;--> statement-breakpoint
ALTER TABLE "vapi_webhook_events" ADD COLUMN "dead_at" timestamp with time zone;