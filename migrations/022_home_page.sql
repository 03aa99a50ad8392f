-- Which page of requests waiting for a person their Home tab shows: the id the page starts after
-- (NULL: the oldest first). "Next" sets it, opening the Home resets it, and every instance
-- republishing that Home draws the same page.
ALTER TABLE slack_home_viewers ADD COLUMN waiting_after integer;
