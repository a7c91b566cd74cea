import { eq } from "drizzle-orm";
import type { Db } from "../../db";
import { developers } from "../../db/schema";
import type { Clock } from "../../lib/clock";
import { errors } from "../../lib/errors";
import { newId } from "../../lib/ids";

export interface PasswordCost {
  memoryCost: number;
  timeCost: number;
}

export interface DeveloperView {
  developerId: string;
  email: string;
  name: string | null;
  createdAt: string;
}

function toView(row: typeof developers.$inferSelect): DeveloperView {
  return { developerId: row.id, email: row.email, name: row.name, createdAt: row.createdAt.toISOString() };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class Identity {
  /** Verified against when the email is unknown, so both failures take the same time. */
  private decoyHash: Promise<string>;
  /** Developers are never deleted: once seen, an id stays valid (bounded, cleared when full). */
  private readonly knownDevelopers = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly cost: PasswordCost,
  ) {
    this.decoyHash = this.hash("decoy-password-never-matches");
  }

  private hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: "argon2id", ...this.cost });
  }

  async register(input: { email: string; password: string; name?: string }): Promise<DeveloperView> {
    const email = normalizeEmail(input.email);
    const passwordHash = await this.hash(input.password);
    const now = this.clock.now();
    const inserted = await this.db
      .insert(developers)
      .values({
        id: newId("dev", now),
        email,
        name: input.name ?? null,
        passwordHash,
        createdAt: new Date(now),
      })
      .onConflictDoNothing()
      .returning();
    if (inserted.length === 0) throw errors.conflict("EMAIL_TAKEN", "This email is already registered");
    return toView(inserted[0]);
  }

  /** Same answer, and about the same time, for an unknown email and a wrong password. */
  async verifyCredentials(email: string, password: string): Promise<DeveloperView> {
    const rows = await this.db.select().from(developers).where(eq(developers.email, normalizeEmail(email)));
    const row = rows[0];
    const matches = await Bun.password.verify(password, row?.passwordHash ?? (await this.decoyHash));
    if (!row || !matches) throw errors.unauthorized("Wrong email or password");
    return toView(row);
  }

  async exists(developerId: string): Promise<boolean> {
    if (this.knownDevelopers.has(developerId)) return true;
    const rows = await this.db.select({ id: developers.id }).from(developers).where(eq(developers.id, developerId));
    if (rows.length === 0) return false;
    if (this.knownDevelopers.size >= 100_000) this.knownDevelopers.clear();
    this.knownDevelopers.add(developerId);
    return true;
  }

  async developer(developerId: string): Promise<DeveloperView> {
    const rows = await this.db.select().from(developers).where(eq(developers.id, developerId));
    if (rows.length === 0) throw errors.unauthorized("The token's developer no longer exists");
    return toView(rows[0]);
  }
}
