CREATE TABLE "node_leases" (
	"host_id" text PRIMARY KEY NOT NULL,
	"epoch" bigint NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
