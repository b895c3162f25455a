"""The review page (`aria-mem ui`): a local web page where a person sees, corrects and
deletes what the companion remembers, private to the account that started it."""
