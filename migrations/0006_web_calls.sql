ALTER TABLE "coaching_calls" DROP CONSTRAINT "coaching_calls_slot_check";--> statement-breakpoint
ALTER TABLE "coaching_calls" DROP CONSTRAINT "coaching_calls_kind_check";--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_slot_check" CHECK ("coaching_calls"."slot" in ('daily', 'evening', 'test', 'web'));--> statement-breakpoint
ALTER TABLE "coaching_calls" ADD CONSTRAINT "coaching_calls_kind_check" CHECK ("coaching_calls"."kind" in ('check_in', 'goal_session', 'web'));