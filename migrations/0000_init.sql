CREATE TABLE "email_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"purpose" text NOT NULL,
	"token_hash" "bytea" NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_tokens_purpose_check" CHECK ("email_tokens"."purpose" in ('confirm_email', 'reset_password'))
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"secret_hash" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_verified_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"user_agent" text,
	"ip" text
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"email_confirmed_at" timestamp with time zone,
	"full_name" text NOT NULL,
	"phone_number" text NOT NULL,
	"communication_consent_version" text NOT NULL,
	"communication_consent_at" timestamp with time zone NOT NULL,
	"terms_accepted_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "users_email_lowercase" CHECK ("users"."email" = lower(btrim("users"."email"))),
	CONSTRAINT "users_phone_digits" CHECK ("users"."phone_number" ~ '^[0-9]{10}$')
);
--> statement-breakpoint
CREATE TABLE "partner_programs" (
	"code" text PRIMARY KEY NOT NULL,
	"company_name" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "profiles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text,
	"phone_number" text,
	"timezone" text DEFAULT 'America/New_York' NOT NULL,
	"daily_call_time" time,
	"active_goals_summary" text,
	"partner_program" text DEFAULT 'GENERAL' NOT NULL,
	"onboarding_completed" boolean DEFAULT false NOT NULL,
	"payment_status" text DEFAULT 'unpaid' NOT NULL,
	"sms_opted_in_at" timestamp with time zone,
	"sms_opt_in_consent_text" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "profiles_partner_program_format" CHECK ("profiles"."partner_program" ~ '^[A-Za-z0-9_-]{1,64}$'),
	CONSTRAINT "profiles_payment_status_check" CHECK ("profiles"."payment_status" in ('unpaid', 'paid'))
);
--> statement-breakpoint
CREATE TABLE "processed_webhook_events" (
	"provider" text NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"processed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "processed_webhook_events_provider_event_id_pk" PRIMARY KEY("provider","event_id"),
	CONSTRAINT "processed_webhook_events_provider_check" CHECK ("processed_webhook_events"."provider" in ('stripe', 'vapi'))
);
--> statement-breakpoint
CREATE TABLE "subscribers" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"subscribed" boolean DEFAULT false NOT NULL,
	"tier" text,
	"status" text,
	"source" text,
	"current_period_end" timestamp with time zone,
	"past_due_since" timestamp with time zone,
	"stripe_customer_id" text,
	"stripe_subscription_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscribers_tier_check" CHECK ("subscribers"."tier" is null or "subscribers"."tier" in ('basic', 'premium', 'elite')),
	CONSTRAINT "subscribers_status_check" CHECK ("subscribers"."status" is null or "subscribers"."status" in ('active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused')),
	CONSTRAINT "subscribers_source_check" CHECK ("subscribers"."source" is null or "subscribers"."source" in ('stripe', 'testing'))
);
--> statement-breakpoint
CREATE TABLE "coaching_calls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"call_date" timestamp with time zone NOT NULL,
	"call_duration" integer DEFAULT 0 NOT NULL,
	"areas_discussed" text[] DEFAULT '{}'::text[] NOT NULL,
	"completion_status" text DEFAULT 'scheduled' NOT NULL,
	"vapi_call_id" text,
	"summary" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "coaching_calls_status_check" CHECK ("coaching_calls"."completion_status" in ('scheduled', 'queued', 'in_progress', 'completed', 'no_answer', 'busy', 'failed', 'cancelled')),
	CONSTRAINT "coaching_calls_duration_nonnegative" CHECK ("coaching_calls"."call_duration" >= 0)
);
--> statement-breakpoint
CREATE TABLE "goals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"life_area" text NOT NULL,
	"selected_options" text[] DEFAULT '{}'::text[] NOT NULL,
	"satisfaction_score" integer,
	"custom_notes" text,
	"specific_goals" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "goals_life_area_check" CHECK ("goals"."life_area" in ('faith', 'family', 'fitness', 'finance', 'friends', 'fun', 'service', 'personal_development', 'company_industry', 'specific_goals')),
	CONSTRAINT "goals_satisfaction_score_range" CHECK ("goals"."satisfaction_score" is null or "goals"."satisfaction_score" between 1 and 10)
);
--> statement-breakpoint
CREATE TABLE "conversations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"title" text DEFAULT 'New Conversation' NOT NULL,
	"content" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"previous_chat_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "conversations_title_length" CHECK (char_length("conversations"."title") between 1 and 200),
	CONSTRAINT "conversations_content_is_array" CHECK (jsonb_typeof("conversations"."content") = 'array')
);
--> statement-breakpoint
CREATE TABLE "course_enrollments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"course_id" uuid NOT NULL,
	"progress_percentage" integer DEFAULT 0 NOT NULL,
	"enrolled_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_accessed_at" timestamp with time zone,
	"last_lesson_id" uuid,
	"completed_at" timestamp with time zone,
	"source" text DEFAULT 'free' NOT NULL,
	"stripe_checkout_session_id" text,
	CONSTRAINT "course_enrollments_progress_range" CHECK ("course_enrollments"."progress_percentage" between 0 and 100),
	CONSTRAINT "course_enrollments_source_check" CHECK ("course_enrollments"."source" in ('free', 'testing', 'stripe'))
);
--> statement-breakpoint
CREATE TABLE "courses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"description" text NOT NULL,
	"thumbnail_url" text,
	"category" text NOT NULL,
	"is_premium" boolean DEFAULT false NOT NULL,
	"price_cents" integer,
	"is_active" boolean DEFAULT true NOT NULL,
	"order_index" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "courses_category_check" CHECK ("courses"."category" in ('product_training', 'marketing', 'business')),
	CONSTRAINT "courses_price_nonnegative" CHECK ("courses"."price_cents" is null or "courses"."price_cents" >= 0),
	CONSTRAINT "courses_premium_has_price" CHECK (not "courses"."is_premium" or "courses"."price_cents" is not null)
);
--> statement-breakpoint
CREATE TABLE "lesson_progress" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"lesson_id" uuid NOT NULL,
	"course_id" uuid NOT NULL,
	"completed" boolean DEFAULT false NOT NULL,
	"completion_date" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "lessons" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"course_id" uuid NOT NULL,
	"title" text NOT NULL,
	"order_index" integer NOT NULL,
	"duration_minutes" integer DEFAULT 0 NOT NULL,
	"lesson_type" text DEFAULT 'text' NOT NULL,
	"video_url" text,
	"video_type" text,
	"content" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lessons_type_check" CHECK ("lessons"."lesson_type" in ('video', 'text', 'quiz')),
	CONSTRAINT "lessons_video_type_check" CHECK ("lessons"."video_type" is null or "lessons"."video_type" in ('youtube', 'file')),
	CONSTRAINT "lessons_duration_nonnegative" CHECK ("lessons"."duration_minutes" >= 0)
);
--> statement-breakpoint
CREATE TABLE "quiz_attempts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"quiz_id" uuid NOT NULL,
	"lesson_id" uuid NOT NULL,
	"course_id" uuid NOT NULL,
	"user_answer" text NOT NULL,
	"is_correct" boolean NOT NULL,
	"points_earned" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quiz_attempts_points_nonnegative" CHECK ("quiz_attempts"."points_earned" >= 0)
);
--> statement-breakpoint
CREATE TABLE "quizzes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"lesson_id" uuid NOT NULL,
	"question" text NOT NULL,
	"options" jsonb NOT NULL,
	"correct_answer" text NOT NULL,
	"points" integer DEFAULT 1 NOT NULL,
	"order_index" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quizzes_points_positive" CHECK ("quizzes"."points" > 0)
);
--> statement-breakpoint
ALTER TABLE "email_tokens" ADD CONSTRAINT "email_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_id_users_id_fk" FOREIGN KEY ("id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscribers" ADD CONSTRAINT "subscribers_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "goals" ADD CONSTRAINT "goals_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "course_enrollments" ADD CONSTRAINT "course_enrollments_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "course_enrollments" ADD CONSTRAINT "course_enrollments_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "course_enrollments" ADD CONSTRAINT "course_enrollments_last_lesson_id_lessons_id_fk" FOREIGN KEY ("last_lesson_id") REFERENCES "public"."lessons"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lesson_progress" ADD CONSTRAINT "lesson_progress_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lesson_progress" ADD CONSTRAINT "lesson_progress_lesson_id_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lesson_progress" ADD CONSTRAINT "lesson_progress_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lessons" ADD CONSTRAINT "lessons_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD CONSTRAINT "quiz_attempts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD CONSTRAINT "quiz_attempts_quiz_id_quizzes_id_fk" FOREIGN KEY ("quiz_id") REFERENCES "public"."quizzes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD CONSTRAINT "quiz_attempts_lesson_id_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quiz_attempts" ADD CONSTRAINT "quiz_attempts_course_id_courses_id_fk" FOREIGN KEY ("course_id") REFERENCES "public"."courses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "quizzes" ADD CONSTRAINT "quizzes_lesson_id_lessons_id_fk" FOREIGN KEY ("lesson_id") REFERENCES "public"."lessons"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_tokens_token_hash_key" ON "email_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "email_tokens_user_purpose_idx" ON "email_tokens" USING btree ("user_id","purpose","created_at");--> statement-breakpoint
CREATE INDEX "sessions_user_id_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_at_idx" ON "sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE INDEX "profiles_daily_call_time_idx" ON "profiles" USING btree ("daily_call_time") WHERE "profiles"."daily_call_time" is not null;--> statement-breakpoint
CREATE INDEX "processed_webhook_events_processed_at_idx" ON "processed_webhook_events" USING btree ("processed_at");--> statement-breakpoint
CREATE UNIQUE INDEX "subscribers_stripe_customer_id_key" ON "subscribers" USING btree ("stripe_customer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "subscribers_stripe_subscription_id_key" ON "subscribers" USING btree ("stripe_subscription_id");--> statement-breakpoint
CREATE INDEX "coaching_calls_user_call_date_idx" ON "coaching_calls" USING btree ("user_id","call_date" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "coaching_calls_vapi_call_id_key" ON "coaching_calls" USING btree ("vapi_call_id");--> statement-breakpoint
CREATE UNIQUE INDEX "goals_user_life_area_key" ON "goals" USING btree ("user_id","life_area");--> statement-breakpoint
CREATE INDEX "conversations_user_updated_at_idx" ON "conversations" USING btree ("user_id","updated_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "course_enrollments_user_course_key" ON "course_enrollments" USING btree ("user_id","course_id");--> statement-breakpoint
CREATE INDEX "course_enrollments_course_idx" ON "course_enrollments" USING btree ("course_id");--> statement-breakpoint
CREATE UNIQUE INDEX "courses_slug_key" ON "courses" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "courses_active_order_idx" ON "courses" USING btree ("order_index") WHERE "courses"."is_active";--> statement-breakpoint
CREATE UNIQUE INDEX "lesson_progress_user_lesson_key" ON "lesson_progress" USING btree ("user_id","lesson_id");--> statement-breakpoint
CREATE INDEX "lesson_progress_user_course_idx" ON "lesson_progress" USING btree ("user_id","course_id");--> statement-breakpoint
CREATE INDEX "lesson_progress_lesson_idx" ON "lesson_progress" USING btree ("lesson_id");--> statement-breakpoint
CREATE UNIQUE INDEX "lessons_course_order_key" ON "lessons" USING btree ("course_id","order_index");--> statement-breakpoint
CREATE INDEX "quiz_attempts_user_quiz_idx" ON "quiz_attempts" USING btree ("user_id","quiz_id","created_at");--> statement-breakpoint
CREATE INDEX "quiz_attempts_quiz_idx" ON "quiz_attempts" USING btree ("quiz_id");--> statement-breakpoint
CREATE INDEX "quiz_attempts_lesson_idx" ON "quiz_attempts" USING btree ("lesson_id");--> statement-breakpoint
CREATE INDEX "quiz_attempts_course_idx" ON "quiz_attempts" USING btree ("course_id");--> statement-breakpoint
CREATE INDEX "quizzes_lesson_order_idx" ON "quizzes" USING btree ("lesson_id","order_index");