import yauzl from 'yauzl'

/** A ZIP's files as text, by name, read with yauzl (which checks the archive's directory and every entry's size and CRC). */
export async function readZip(buffer: Buffer): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, validateEntrySizes: true })
  const files = new Map<string, string>()
  for await (const entry of zip.eachEntry()) {
    const stream = await zip.openReadStreamPromise(entry)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    files.set(entry.fileName, Buffer.concat(chunks).toString('utf8'))
  }
  zip.close()
  return files
}
