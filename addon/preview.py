"""PNG previews of UV layouts (needs Pillow: ``pip install 'uvnest[preview]'``).

::

    from uvnest import find_islands, preview
    islands = find_islands(result.uvs, faces)
    preview.write_preview("layout.png", islands, margin=0.004, coverage=result.coverage, scale=result.scale)

The image is square.  The unit UV tile sits in its middle with a border band
around it (``uv_to_pixel`` gives the mapping; v points up).  Every island is
filled with its own colour (golden-ratio hues, so neighbours differ), its
outline is drawn in a darker shade, and a translucent band of half the
margin surrounds each outline: the bands of two islands exactly one margin
apart touch, and overlapping bands show a margin violation.  The tile border
is a light frame.  The band above the tile carries the title on the left and
the coverage and scale on the right; the band below gives the island count
and the margin.  Shapes are drawn at twice the size and scaled down, so edges
are smooth.  Images are written atomically and tagged (PNG text
``Software: uvnest <version>``) so that ``is_uvnest_preview`` can tell them
from other PNG files, such as a model's texture, which must not be
overwritten.
"""
from __future__ import annotations

import colorsys
import importlib
import os
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .io.atomic import atomic_open

if TYPE_CHECKING:
    from PIL import Image as PILImage

    from .islands import Island

__all__ = ["PreviewUnavailable", "require_pillow", "uv_to_pixel", "render_preview", "write_preview",
           "is_uvnest_preview", "BACKGROUND", "TILE_COLOUR", "DEFAULT_SIZE"]

PathLike = Union[str, "os.PathLike[str]"]

#: Default image side in pixels.
DEFAULT_SIZE = 1024
#: Smallest image side that leaves room for the captions.
MIN_SIZE = 128
#: Colour outside the tile.
BACKGROUND = (30, 31, 36)
#: Colour of the empty tile.
TILE_COLOUR = (52, 54, 62)
_BORDER_COLOUR = (225, 228, 235)
_BAND_COLOUR = (255, 255, 255, 70)
_TEXT_COLOUR = (225, 228, 235)
_SUPERSAMPLE = 2
_SOFTWARE = "uvnest"
_GOLDEN = 0.618033988749895


class PreviewUnavailable(RuntimeError):
    """Pillow is not installed, so no PNG preview can be made."""


def require_pillow() -> None:
    """Raise :class:`PreviewUnavailable` with the install hint when Pillow is missing."""
    try:
        importlib.import_module("PIL.Image")
    except ImportError:
        raise PreviewUnavailable("PNG previews need Pillow: pip install 'uvnest[preview]' (or pip install pillow)") \
            from None


def _frame(size: int) -> Tuple[float, float]:
    """(pad, side): the tile occupies ``[pad, pad + side]`` in both pixel axes."""
    pad = max(18.0, round(size * 0.045))
    return pad, size - 2 * pad


def uv_to_pixel(uv: np.ndarray, size: int = DEFAULT_SIZE) -> np.ndarray:
    """Pixel coordinates ``(x, y)`` of UV points in a preview of ``size`` pixels.

    ``uv`` is ``(N, 2)``; the tile's corner (0, 1) maps to the top-left of
    the tile area and v grows upwards.  Pixel ``(x, y)`` covers
    ``[x, x + 1) x [y, y + 1)``.
    """
    pad, side = _frame(size)
    p = np.asarray(uv, dtype=np.float64).reshape(-1, 2)
    return np.column_stack((pad + p[:, 0] * side, pad + (1.0 - p[:, 1]) * side))


def _colour(i: int, value: float, saturation: float) -> Tuple[int, int, int]:
    """Colour of island ``i``: golden-ratio hue steps, so neighbours in the list differ."""
    r, g, b = colorsys.hsv_to_rgb((i * _GOLDEN) % 1.0, saturation, value)
    return int(r * 255 + 0.5), int(g * 255 + 0.5), int(b * 255 + 0.5)


def _font(px: int) -> Any:
    """A scalable font of ``px`` pixels when Pillow has FreeType, else the bitmap default."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=px)
    except (TypeError, ImportError, OSError):  # Pillow < 10.1 or no FreeType
        return ImageFont.load_default()


def _text(draw: Any, x: float, y: float, text: str, font: Any, right: bool = False) -> float:
    """Draw one line vertically centred on ``y``, starting at ``x`` (ending
    there if ``right``); returns its width.  Positions come from the text's
    bounding box, which bitmap fonts also support (unlike anchors)."""
    left, top, end, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text((x - end if right else x - left, y - (top + bottom) / 2), text, fill=_TEXT_COLOUR, font=font)
    return float(end - left)


def render_preview(islands: Sequence["Island"], *, size: int = DEFAULT_SIZE, margin: float = 0.0,
                   coverage: Optional[float] = None, scale: Optional[float] = None,
                   title: str = "") -> "PILImage.Image":
    """Draw a layout: an RGB image of ``size`` x ``size`` pixels.

    ``islands`` are islands *of the layout to show* (``find_islands`` of the
    packed UVs; their ``outline`` rings are drawn, holes included).
    ``margin`` (tile units) sets the translucent band around each outline
    (half the margin wide).  ``coverage`` and ``scale`` are printed when
    given, and ``title`` (e.g. the file name) on the left of the top band.
    """
    require_pillow()
    from PIL import Image, ImageDraw

    if size < MIN_SIZE:
        raise ValueError(f"preview size must be at least {MIN_SIZE} pixels, got {size}")
    ss = _SUPERSAMPLE
    big = size * ss
    pad, side = _frame(size)
    img = Image.new("RGB", (big, big), BACKGROUND)
    draw = ImageDraw.Draw(img, "RGBA")
    draw.rectangle([pad * ss, pad * ss, (pad + side) * ss - 1, (pad + side) * ss - 1], fill=TILE_COLOUR)

    rings_px = [[uv_to_pixel(r, size) * ss for r in isl.outline] for isl in islands]
    band = margin * side * ss  # full stroke width: half of it lies outside the outline
    if band > 0:
        width = max(1, int(round(band)))
        for rings in rings_px:
            for r in rings:
                # past the first point again, so that the corner where the ring closes is joined too
                pts = [tuple(p) for p in r] + [tuple(r[0]), tuple(r[1 % len(r)])]
                draw.line(pts, fill=_BAND_COLOUR, width=width, joint="curve")
    for k, rings in enumerate(rings_px):
        if not rings:
            continue
        _fill_island(img, rings, _colour(k, 0.92, 0.55))
    outline_w = ss
    for k, rings in enumerate(rings_px):
        colour = _colour(k, 0.38, 0.75)
        for r in rings:
            draw.line([tuple(p) for p in r] + [tuple(r[0])], fill=colour, width=outline_w)
    t0, t1 = pad * ss - ss, (pad + side) * ss + ss - 1
    draw.rectangle([t0, t0, t1, t1], outline=_BORDER_COLOUR, width=ss)

    img = img.resize((size, size), Image.Resampling.BOX)
    _captions(img, islands, size, margin, coverage, scale, title)
    return img


def _fill_island(img: Any, rings: Sequence[np.ndarray], colour: Tuple[int, int, int]) -> None:
    """Fill one island through a mask the size of its bounding box.

    The mask is the even-odd fill of its rings (every ring toggles what it
    encloses), so holes stay empty and islands of the same group lying in a
    hole are filled again, whatever the rings' order.
    """
    from PIL import Image, ImageDraw

    pts = np.concatenate(rings)
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 1
    w, h = int(x1 - x0), int(y1 - y0)
    inside = np.zeros((h, w), dtype=bool)
    for r in rings:
        ring_mask = Image.new("L", (w, h), 0)
        ImageDraw.Draw(ring_mask).polygon([tuple(p) for p in r - (x0, y0)], fill=1)
        inside ^= np.asarray(ring_mask, dtype=bool)
    img.paste(colour, (int(x0), int(y0), int(x1), int(y1)), Image.fromarray(inside.astype(np.uint8) * 255))


def _captions(img: Any, islands: Sequence["Island"], size: int, margin: float, coverage: Optional[float],
              scale: Optional[float], title: str) -> None:
    """Title, coverage and scale above the tile; island count, margin and version below."""
    from PIL import ImageDraw

    pad, _side = _frame(size)
    draw = ImageDraw.Draw(img)
    font = _font(max(10, int(pad * 0.5)))
    top, bottom = pad * 0.5, size - pad * 0.5
    right = "   ".join(s for s in ("" if coverage is None else f"coverage {coverage:.1%}",
                                   "" if scale is None else f"scale {scale:.4g}") if s)
    room = size - 3 * pad - _text(draw, size - pad, top, right, font, right=True)
    while title and draw.textlength(title, font=font) > room:
        title = title[:-4] + "..." if len(title) > 4 else ""
    if title:
        _text(draw, pad, top, title, font)
    n = sum(len(isl.members) or 1 for isl in islands)
    _text(draw, pad, bottom, f"{n} island{'s' if n != 1 else ''}   margin {margin:.4g}", font)
    _text(draw, size - pad, bottom, f"uvnest {__version__}", font, right=True)


def write_preview(path: PathLike, islands: Sequence["Island"], **options) -> None:
    """Render a preview (see :func:`render_preview` for the options) and write
    it to ``path`` as PNG, atomically, tagged as a uvnest preview."""
    from PIL.PngImagePlugin import PngInfo

    img = render_preview(islands, **options)
    info = PngInfo()
    info.add_text("Software", f"{_SOFTWARE} {__version__}")
    with atomic_open(path, "wb") as f:
        img.save(f, format="PNG", pnginfo=info, optimize=False)


def is_uvnest_preview(path: PathLike) -> bool:
    """True when ``path`` is a PNG that uvnest wrote (a preview it may replace)."""
    require_pillow()
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            software = str(getattr(im, "text", {}).get("Software", ""))
    except (OSError, UnidentifiedImageError, ValueError):
        return False
    return software.split(" ")[0] == _SOFTWARE
