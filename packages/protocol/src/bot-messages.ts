/** Every message a bot sends. */
import { Type as T } from "@sinclair/typebox";
import { ActionName, Int, strict } from "./kit";

export const botMessages = {
  action: strict({
    type: T.Literal("action"),
    requestId: T.String(),
    action: ActionName,
    amount: T.Optional(Int("With raise only: the street total to raise to")),
  }),
  ping: strict({ type: T.Literal("ping") }),
};
