"""Story generation: SciFi-100, personas, the five writing frameworks, transcripts and the resumable runner."""

from .dataset import PromptItem, load_scifi, save_scifi, select_prompts
from .frameworks import (
    BASELINES,
    FRAMEWORKS,
    STORY_SAMPLING,
    LLMDebate,
    LLMDiscussion,
    LLMReview,
    LLMTeacher,
    SingleAgent,
    WritingConfig,
    build_framework,
    large_single_system,
    story_token_budget,
)
from .story_record import StoryRecord, read_transcripts
from .transcript import Message, Transcript
from .writing_run import RunResult, load_stories, run_writing

__all__ = ["BASELINES", "FRAMEWORKS", "LLMDebate", "LLMDiscussion", "LLMReview", "LLMTeacher", "Message", "PromptItem",
           "RunResult", "STORY_SAMPLING", "SingleAgent", "StoryRecord", "Transcript", "WritingConfig",
           "build_framework", "large_single_system", "story_token_budget",
           "load_scifi", "load_stories", "read_transcripts", "run_writing", "save_scifi", "select_prompts"]
