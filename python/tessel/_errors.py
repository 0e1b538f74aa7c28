"""The exceptions: one per exit status of the command line, each carrying its one-line message
(str(exc) is the line `tessel CMD` prints on stderr) and the status (exc.status)."""


class TesselError(Exception):
    """A call that failed: .status is the command line's exit status, str() its message."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class NoAnswer(TesselError):
    """Exit status 1: the question has no answer (an invalid schedule, no schedule within the
    memory, no plan that fits)."""

    status = 1


class InvalidInput(TesselError, ValueError):
    """Exit status 2: bad usage or bad input (a keyword out of range, a malformed placement)."""

    status = 2


class SystemFailure(TesselError):
    """Exit status 3: a file that cannot be written or read, or memory."""

    status = 3


class Cancelled(TesselError):
    """The search was cancelled (CancelToken.cancel) before it finished."""

    status = 4


_BY_STATUS = {1: NoAnswer, 2: InvalidInput, 3: SystemFailure, 4: Cancelled}


def error_for(status, message):
    cls = _BY_STATUS.get(status, TesselError)
    return cls(message, status)
