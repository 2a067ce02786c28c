CREATE TABLE "account_data_exports" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"last_started_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "retained_billing_records" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"stripe_customer_id" text,
	"stripe_subscription_id" text,
	"stripe_checkout_session_id" text,
	"item" text NOT NULL,
	"status" text,
	"account_deleted_at" timestamp with time zone NOT NULL,
	"retain_until" timestamp with time zone NOT NULL,
	CONSTRAINT "retained_billing_records_kind_check" CHECK ("retained_billing_records"."kind" in ('subscription', 'course_purchase')),
	CONSTRAINT "retained_billing_records_period" CHECK ("retained_billing_records"."account_deleted_at" < "retained_billing_records"."retain_until")
);
--> statement-breakpoint
ALTER TABLE "account_data_exports" ADD CONSTRAINT "account_data_exports_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "retained_billing_records_retain_until_idx" ON "retained_billing_records" USING btree ("retain_until");--> statement-breakpoint
CREATE INDEX "vapi_webhook_events_vapi_call_id_idx" ON "vapi_webhook_events" USING btree ("vapi_call_id");