/** What the model is told about an approved call whose arguments did not match its grant. */
export const blockedMessage = (toolName: string) => `Tool call blocked: approval did not match ${toolName} arguments`;
