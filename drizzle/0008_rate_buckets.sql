CREATE TABLE "rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"at_ms" bigint NOT NULL,
	"last_take_allowed" boolean NOT NULL
);
