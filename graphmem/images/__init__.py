"""Images as memories: decode and check an image, read its text, keep its bytes.

Touches no records store: graphmem.usecases.images turns what this package finds into an
ordinary write (caption + text read by OCR, screened by the firewall like any other text).
"""

from graphmem.images.decode import MIME, DecodedImage, decode
from graphmem.images.ocr import OcrResult, read_text
from graphmem.images.settings import ImageSettings
from graphmem.images.store import ImageStore

__all__ = [
    "MIME",
    "DecodedImage",
    "ImageSettings",
    "ImageStore",
    "OcrResult",
    "decode",
    "read_text",
]
