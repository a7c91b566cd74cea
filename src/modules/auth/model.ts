import { t } from "elysia";
import { plainText } from "../../lib/http";

export const Developer = t.Object(
  {
    developerId: t.String({ examples: ["dev_01jx8m2k3n4p5q6r7s8t9v0w1x"] }),
    email: t.String({ format: "email" }),
    name: t.Union([t.String(), t.Null()]),
    createdAt: t.String({ format: "date-time" }),
  },
  { title: "Developer" },
);

export const RegisterBody = t.Object(
  {
    email: t.String({ format: "email", maxLength: 254, description: "Unique, compared case-insensitively" }),
    password: t.String({ minLength: 8, maxLength: 128 }),
    name: t.Optional(plainText({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false, title: "RegisterRequest", examples: [{ email: "ada@example.com", password: "correct horse battery", name: "Ada" }] },
);

export const RegisterResponse = t.Object({ developer: Developer, token: t.String() }, { title: "Registration" });

export const LoginBody = t.Object(
  {
    email: t.String({ maxLength: 254 }),
    password: t.String({ maxLength: 128 }),
  },
  { additionalProperties: false, title: "LoginRequest", examples: [{ email: "ada@example.com", password: "correct horse battery" }] },
);

export const LoginResponse = t.Object({
  token: t.String({ description: "Send as `Authorization: Bearer <token>`" }),
  expiresAt: t.String({ format: "date-time" }),
}, { title: "Login" });
