"""Reading the board with the overhead camera (issue 6); see docs/vision.md.

- :class:`vision.recognizer.Recognizer` - ``recognize(frame, region=None) -> [Reading]``
  (card or None when unsure, confidence, outline); no camera inside.
- :class:`vision.camera.Camera` - cv2.VideoCapture in a thread, posting
  :mod:`vision.events` (``BoardRead``, ``CameraLost``, ``CameraBack``, ``FrameRejected``).
- :class:`vision.boardcheck.BoardCheck` - shuffler board vs camera readings, injected clock.
- :mod:`vision.calibration` (board region), :mod:`vision.enroll` (house deck),
  :func:`vision.render.render_board` (synthetic frames for ``livetable simulate``).

Modules import lazily: ``import vision`` loads neither OpenCV nor the glyph bank.
"""
