-- A persona set with /system lasts for its conversation, also when the chat is resumed.
ALTER TABLE conversations ADD COLUMN system_prompt text;
