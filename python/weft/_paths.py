"""weft._paths - where a package built against a build tree finds that
tree's plugins (setup.py writes _build_info.py then). libweft searches
$WEFT_PLUGIN_PATH and $WEFT_MODEL_PATH, each a ":"-separated list of
directories, before the installed plugin directory, and the first plugin
of a name wins (docs/plugin-loading.md). The build tree's directories
stand in for the installed one: they are appended to what the user set
(or set alone when nothing is), so that a user's own plugins are found
first and the tree's are found too. An installed weft needs nothing: its
plugin directory is compiled into libweft."""
import os

try:
    from . import _build_info
except ImportError:
    _build_info = None


def _append(var: str, dirs: str) -> None:
    """$var with dirs (":"-separated) after the directories it names,
    each directory once."""
    have = [d for d in os.environ.get(var, "").split(os.pathsep) if d]
    add = [d for d in dirs.split(os.pathsep) if d and d not in have]
    if add:
        os.environ[var] = os.pathsep.join(have + add)


BUILD_DIR = getattr(_build_info, "BUILD_DIR", None)
if _build_info is not None:
    if _build_info.PLUGIN_PATH:
        _append("WEFT_PLUGIN_PATH", _build_info.PLUGIN_PATH)
    if _build_info.MODEL_PATH:
        _append("WEFT_MODEL_PATH", _build_info.MODEL_PATH)
