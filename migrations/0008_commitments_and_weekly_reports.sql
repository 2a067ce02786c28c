CREATE TABLE "commitments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"call_id" uuid NOT NULL,
	"position" smallint NOT NULL,
	"text" text NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"made_at" timestamp with time zone NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" text,
	"resolved_call_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "commitments_status_check" CHECK ("commitments"."status" in ('open', 'kept', 'missed')),
	CONSTRAINT "commitments_resolved_by_check" CHECK ("commitments"."resolved_by" is null or "commitments"."resolved_by" in ('call', 'app')),
	CONSTRAINT "commitments_resolution" CHECK (("commitments"."status" = 'open') = ("commitments"."resolved_at" is null)),
	CONSTRAINT "commitments_position_range" CHECK ("commitments"."position" between 0 and 99)
);
--> statement-breakpoint
CREATE TABLE "weekly_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"week_ending" date NOT NULL,
	"time_zone" text NOT NULL,
	"period_start" timestamp with time zone NOT NULL,
	"period_end" timestamp with time zone NOT NULL,
	"content" jsonb,
	"generated_at" timestamp with time zone,
	"email_status" text DEFAULT 'pending' NOT NULL,
	"email_skip_reason" text,
	"email_claimed_at" timestamp with time zone,
	"email_sent_at" timestamp with time zone,
	"unsubscribe_token_hash" "bytea",
	"text_status" text DEFAULT 'pending' NOT NULL,
	"text_skip_reason" text,
	"text_requested_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "weekly_reports_email_status_check" CHECK ("weekly_reports"."email_status" in ('pending', 'sending', 'sent', 'skipped', 'failed')),
	CONSTRAINT "weekly_reports_text_status_check" CHECK ("weekly_reports"."text_status" in ('pending', 'requested', 'skipped')),
	CONSTRAINT "weekly_reports_period" CHECK ("weekly_reports"."period_start" < "weekly_reports"."period_end"),
	CONSTRAINT "weekly_reports_generated" CHECK (("weekly_reports"."content" is null) = ("weekly_reports"."generated_at" is null))
);
--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD COLUMN "asked_commitment_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "commitments" ADD CONSTRAINT "commitments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commitments" ADD CONSTRAINT "commitments_call_id_coaching_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."coaching_calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "commitments" ADD CONSTRAINT "commitments_resolved_call_id_coaching_calls_id_fk" FOREIGN KEY ("resolved_call_id") REFERENCES "public"."coaching_calls"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "weekly_reports" ADD CONSTRAINT "weekly_reports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "commitments_call_position_key" ON "commitments" USING btree ("call_id","position");--> statement-breakpoint
CREATE INDEX "commitments_user_made_idx" ON "commitments" USING btree ("user_id","made_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "commitments_user_resolved_idx" ON "commitments" USING btree ("user_id","resolved_at") WHERE "commitments"."resolved_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "weekly_reports_user_week_key" ON "weekly_reports" USING btree ("user_id","week_ending");--> statement-breakpoint
CREATE INDEX "weekly_reports_user_period_idx" ON "weekly_reports" USING btree ("user_id","period_end" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "weekly_reports_undelivered_idx" ON "weekly_reports" USING btree ("period_end") WHERE "weekly_reports"."generated_at" is null or "weekly_reports"."email_status" in ('pending', 'sending') or "weekly_reports"."text_status" = 'pending';