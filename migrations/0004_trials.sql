ALTER TABLE "subscribers" ADD COLUMN "trial_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscribers" ADD COLUMN "trial_reminder_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "subscribers" ADD COLUMN "cancel_scheduled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "subscribers_trial_reminder_idx" ON "subscribers" USING btree ("trial_end") WHERE "subscribers"."status" = 'trialing' and "subscribers"."trial_reminder_sent_at" is null;