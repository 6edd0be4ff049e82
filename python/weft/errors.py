"""weft.errors - one exception per family of weft_status (weft/common.h),
all under WeftError, each carrying the C library's message unchanged
(str(e)) and its status code (e.status, e.g. -4 for WEFT_E_CONFIG).

Families that match a Python built-in derive from it too, so that
``except ValueError`` still catches a bad argument and ``except OSError``
a file that cannot be written.
"""

__all__ = ["WeftError", "InvalidArgumentError", "OutOfMemoryError",
           "FileError", "ConfigError", "PluginError", "BackendError",
           "DeviceError", "ModelError", "UnsupportedError", "InternalError"]


class WeftError(Exception):
    """A weft call failed; str(e) is weft's message, e.status its code."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status

    def __str__(self):
        return self.args[0] if self.args else ""


class InvalidArgumentError(WeftError, ValueError):
    """WEFT_E_INVALID: a bad argument (an action out of range, a shape)."""
    status = -1


class OutOfMemoryError(WeftError, MemoryError):
    """WEFT_E_NOMEM: host or device memory exhausted."""
    status = -2


class FileError(WeftError, OSError):
    """WEFT_E_IO: a file could not be read or written."""
    status = -3

    def __str__(self):
        return self.args[0] if self.args else ""


class ConfigError(WeftError, ValueError):
    """WEFT_E_CONFIG: a bad configuration file or override (the message
    names the file, line, section and key): a bad value, so a
    ValueError too."""
    status = -4


class PluginError(WeftError):
    """WEFT_E_PLUGIN: a plugin could not be loaded (path, stage, reason)."""
    status = -5


class BackendError(WeftError):
    """WEFT_E_UNAVAILABLE: the backend asked for cannot run here (the
    message lists the backends that can, and why the others cannot)."""
    status = -6


class DeviceError(WeftError):
    """WEFT_E_DEVICE: the device or its driver failed."""
    status = -7


class ModelError(WeftError):
    """WEFT_E_MODEL: the model refused its parameters or data."""
    status = -8


class UnsupportedError(WeftError):
    """WEFT_E_UNSUPPORTED: the backend does not offer this operation."""
    status = -9


class InternalError(WeftError):
    """WEFT_E_INTERNAL: a broken invariant, a bug in weft."""
    status = -10
