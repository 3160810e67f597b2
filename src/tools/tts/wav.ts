/** WAV files: raw PCM given the 44-byte RIFF header players need, and a check that bytes are one. */

export interface PcmShape {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
}

/** Signed 16-bit little-endian mono at 24 kHz: what Gemini's speech models send. */
export const GEMINI_PCM: PcmShape = { sampleRate: 24_000, channels: 1, bitsPerSample: 16 };

/** `pcm` with a canonical WAV header in front. */
export function pcmToWav(pcm: Buffer, shape: PcmShape = GEMINI_PCM): Buffer {
  const { sampleRate, channels, bitsPerSample } = shape;
  const blockAlign = (channels * bitsPerSample) / 8;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // size of the fmt chunk
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** Whether `bytes` start like a WAV file. */
export function isWav(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.toString("ascii", 0, 4) === "RIFF" && bytes.toString("ascii", 8, 12) === "WAVE";
}
