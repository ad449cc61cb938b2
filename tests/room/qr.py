"""Read a QR code the room serves, as a phone would, with OpenCV.

OpenCV's classic ``QRCodeDetector`` misses about one code in a hundred that segno makes (19 of
2,000 phone addresses on ports 40000-41999; 27 of 2,000 login links), which phones read; its
ArUco-based ``QRCodeDetectorAruco`` reads every one of those. A test that asserts what the code
says therefore tries both, so it fails only when the code itself is wrong.
"""
from __future__ import annotations

from typing import Any


def read_qr(png: bytes) -> str:
    """The text of the QR code in ``png`` (PNG bytes), or ``""`` when neither of OpenCV's two
    detectors finds one."""
    import cv2
    import numpy as np

    img: Any = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    text: str = cv2.QRCodeDetector().detectAndDecode(img)[0]
    if not text:
        text = cv2.QRCodeDetectorAruco().detectAndDecode(img)[0]
    return text
