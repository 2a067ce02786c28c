ALTER TABLE "subscribers" ADD COLUMN "cancel_at" timestamp with time zone;--> statement-breakpoint
-- Subscriptions already known to be cancelled: Stripe ends them at the period's end (the common case);
-- the next event about one writes Stripe's own cancel_at.
UPDATE "subscribers" SET "cancel_at" = "current_period_end" WHERE "cancel_scheduled" AND "source" = 'stripe';
