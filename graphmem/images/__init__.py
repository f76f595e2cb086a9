"""Images as memories: decode and check an image, read its text, keep its bytes (in a
directory or an S3-compatible bucket: graphmem.images.port), and, with an image-text model,
embed it and the queries into one space (graphmem.images.clip, graphmem.images.channel).

Touches no records store: graphmem.usecases.images turns what this package finds into an
ordinary write (caption + text read by OCR, screened by the firewall like any other text).
"""

from graphmem.images.channel import ImageChannel, load_model, open_image_channel
from graphmem.images.decode import MIME, DecodedImage, decode
from graphmem.images.ocr import OcrResult, read_text
from graphmem.images.port import ImageStore
from graphmem.images.settings import ImageSettings
from graphmem.images.store import FileImageStore, open_image_store

__all__ = [
    "MIME",
    "DecodedImage",
    "FileImageStore",
    "ImageChannel",
    "ImageSettings",
    "ImageStore",
    "OcrResult",
    "decode",
    "load_model",
    "open_image_channel",
    "open_image_store",
    "read_text",
]
