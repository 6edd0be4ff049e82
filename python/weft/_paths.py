"""weft._paths - where a package built against a build tree finds that
tree's plugins (setup.py writes _build_info.py then): $WEFT_PLUGIN_PATH
and $WEFT_MODEL_PATH are set to them unless already set, so that
libweft, which reads them, finds them. An installed weft needs nothing:
its plugin directory is compiled into libweft."""
import os

try:
    from . import _build_info
except ImportError:
    _build_info = None

BUILD_DIR = getattr(_build_info, "BUILD_DIR", None)
if _build_info is not None:
    if _build_info.PLUGIN_PATH:
        os.environ.setdefault("WEFT_PLUGIN_PATH", _build_info.PLUGIN_PATH)
    if _build_info.MODEL_PATH:
        os.environ.setdefault("WEFT_MODEL_PATH", _build_info.MODEL_PATH)
