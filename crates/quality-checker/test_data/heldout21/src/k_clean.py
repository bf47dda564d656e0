from k_clean_a import DIALOGUES as A
from k_clean_b import DIALOGUES as B

DIALOGUES = A + B
