"""The encoder room: loading a model, pooling, windows, batching, precision, device.

How a document becomes a vector: loading a Hugging Face encoder by name or folder, mean
pooling, whole documents cut into windows, length-sorted padded mini-batches, the
inference precision (bfloat16, int8 through an ONNX export) and the choice of device.
"""
