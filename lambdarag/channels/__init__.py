"""Retrieval channels: each module exposes build(domain, chunks, progress) and load(domain) -> Channel."""

from lambdarag.channels.base import CHANNEL_MODULES, BuildResult, Channel, channel_module, load_channels

__all__ = ["CHANNEL_MODULES", "BuildResult", "Channel", "channel_module", "load_channels"]
