-- GiST over a uuid's equality (the coach) beside a range's overlap: the exclusion constraint below.
CREATE EXTENSION IF NOT EXISTS btree_gist;--> statement-breakpoint
CREATE TABLE "coach_availability" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"coach_user_id" uuid NOT NULL,
	"weekday" smallint NOT NULL,
	"start_time" text NOT NULL,
	"end_time" text NOT NULL,
	CONSTRAINT "coach_availability_weekday_check" CHECK ("coach_availability"."weekday" between 1 and 7),
	CONSTRAINT "coach_availability_times_check" CHECK ("coach_availability"."end_time" > "coach_availability"."start_time")
);
--> statement-breakpoint
CREATE TABLE "coach_availability_exceptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"coach_user_id" uuid NOT NULL,
	"date" date NOT NULL,
	"kind" text NOT NULL,
	"start_time" text,
	"end_time" text,
	CONSTRAINT "coach_availability_exceptions_kind_check" CHECK ("coach_availability_exceptions"."kind" in ('off', 'extra')),
	CONSTRAINT "coach_availability_exceptions_hours_check" CHECK (("coach_availability_exceptions"."kind" = 'off') or ("coach_availability_exceptions"."start_time" is not null and "coach_availability_exceptions"."end_time" is not null and "coach_availability_exceptions"."end_time" > "coach_availability_exceptions"."start_time"))
);
--> statement-breakpoint
CREATE TABLE "coach_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_user_id" uuid NOT NULL,
	"coach_user_id" uuid,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"blocked_until" timestamp with time zone NOT NULL,
	"hold_expires_at" timestamp with time zone,
	"moves_session_id" uuid,
	"member_time_zone" text NOT NULL,
	"month" text NOT NULL,
	"counts" boolean DEFAULT false NOT NULL,
	"sequence" integer DEFAULT 0 NOT NULL,
	"meeting" text DEFAULT 'phone' NOT NULL,
	"video_url" text,
	"summary" text,
	"commitments" text[],
	"reminder24h_at" timestamp with time zone,
	"reminder1h_at" timestamp with time zone,
	"coach_reminder24h_at" timestamp with time zone,
	"coach_reminder1h_at" timestamp with time zone,
	"booked_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "coach_sessions_kind_check" CHECK ("coach_sessions"."kind" in ('monthly', 'onboarding')),
	CONSTRAINT "coach_sessions_status_check" CHECK ("coach_sessions"."status" in ('held', 'booked', 'cancelled', 'completed', 'no_show')),
	CONSTRAINT "coach_sessions_meeting_check" CHECK ("coach_sessions"."meeting" in ('phone', 'video')),
	CONSTRAINT "coach_sessions_range_check" CHECK ("coach_sessions"."ends_at" > "coach_sessions"."starts_at" and "coach_sessions"."blocked_until" >= "coach_sessions"."ends_at")
);
--> statement-breakpoint
ALTER TABLE "coach_profiles" ADD COLUMN "session_buffer_minutes" smallint DEFAULT 15 NOT NULL;--> statement-breakpoint
ALTER TABLE "coach_profiles" ADD COLUMN "min_notice_hours" smallint DEFAULT 24 NOT NULL;--> statement-breakpoint
ALTER TABLE "coach_profiles" ADD COLUMN "horizon_days" smallint DEFAULT 30 NOT NULL;--> statement-breakpoint
ALTER TABLE "coach_availability" ADD CONSTRAINT "coach_availability_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_availability_exceptions" ADD CONSTRAINT "coach_availability_exceptions_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_sessions" ADD CONSTRAINT "coach_sessions_member_user_id_users_id_fk" FOREIGN KEY ("member_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coach_sessions" ADD CONSTRAINT "coach_sessions_coach_user_id_users_id_fk" FOREIGN KEY ("coach_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "coach_availability_coach_idx" ON "coach_availability" USING btree ("coach_user_id");--> statement-breakpoint
CREATE INDEX "coach_availability_exceptions_coach_idx" ON "coach_availability_exceptions" USING btree ("coach_user_id","date");--> statement-breakpoint
CREATE INDEX "coach_sessions_member_idx" ON "coach_sessions" USING btree ("member_user_id","starts_at");--> statement-breakpoint
CREATE INDEX "coach_sessions_coach_idx" ON "coach_sessions" USING btree ("coach_user_id","starts_at");--> statement-breakpoint
CREATE INDEX "coach_sessions_booked_idx" ON "coach_sessions" USING btree ("starts_at") WHERE "coach_sessions"."status" = 'booked';--> statement-breakpoint
CREATE UNIQUE INDEX "coach_sessions_month_key" ON "coach_sessions" USING btree ("member_user_id","kind","month") WHERE "coach_sessions"."counts";--> statement-breakpoint
ALTER TABLE "coach_profiles" ADD CONSTRAINT "coach_profiles_sessions_check" CHECK ("coach_profiles"."session_buffer_minutes" between 0 and 120 and "coach_profiles"."min_notice_hours" between 1 and 168 and "coach_profiles"."horizon_days" between 7 and 90);--> statement-breakpoint
-- No two live rows (held or booked) of one coach overlap, buffer included: a double booking cannot be stored.
ALTER TABLE "coach_sessions" ADD CONSTRAINT "coach_sessions_no_overlap" EXCLUDE USING gist ("coach_user_id" WITH =, tstzrange("starts_at", "blocked_until") WITH &&) WHERE ("status" in ('held', 'booked'));