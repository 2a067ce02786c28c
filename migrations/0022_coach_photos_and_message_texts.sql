CREATE TABLE "coach_photos" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"image" "bytea" NOT NULL,
	"content_type" text NOT NULL,
	"version" text NOT NULL,
	"bytes" integer NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "coach_photos_bytes_check" CHECK ("coach_photos"."bytes" between 1 and 1048576)
);
--> statement-breakpoint
ALTER TABLE "text_messages" DROP CONSTRAINT "text_messages_kind_check";--> statement-breakpoint
ALTER TABLE "coach_photos" ADD CONSTRAINT "coach_photos_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_messages" ADD CONSTRAINT "text_messages_kind_check" CHECK ("text_messages"."kind" in ('recap', 'missed_call', 'weekly_report', 'coach_message'));