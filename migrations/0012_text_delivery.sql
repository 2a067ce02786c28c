CREATE TABLE "text_suppressions" (
	"user_id" uuid NOT NULL,
	"to_number" text NOT NULL,
	"error_code" integer NOT NULL,
	"text_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "text_suppressions_user_id_to_number_pk" PRIMARY KEY("user_id","to_number")
);
--> statement-breakpoint
ALTER TABLE "text_suppressions" ADD CONSTRAINT "text_suppressions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "text_suppressions" ADD CONSTRAINT "text_suppressions_text_id_text_messages_id_fk" FOREIGN KEY ("text_id") REFERENCES "public"."text_messages"("id") ON DELETE set null ON UPDATE no action;