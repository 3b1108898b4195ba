"""Errors and the one message template shared with the Node side."""


class SegmentGoneError(FileNotFoundError):
    """The segment was released by every process (its name no longer names it)."""


class PrivateMemoryError(ValueError):
    """share() of an array whose memory lies in no segment, without copy=True."""


def describe(value):
    """How a received value reads in an error message."""
    if isinstance(value, str):
        return repr(value)
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)) and len(value) <= 8:
        return repr(value)
    return f'a {type(value).__name__}'


def expected(field, what, received):
    """'Expected X for `field`, received Y' (the Node side's template)."""
    return f'Expected {what} for `{field}`, received {describe(received)}'
