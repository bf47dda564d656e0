import d_clean_a, d_clean_b
DIALOGUES = d_clean_a.DIALOGUES + d_clean_b.DIALOGUES
