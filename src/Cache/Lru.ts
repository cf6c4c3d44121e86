interface Node<V> {
  readonly key: string
  value: V
  older: Node<V> | undefined
  newer: Node<V> | undefined
}

/**
 * A map that knows which entry was touched least recently, in O(1) per operation. (A plain Map
 * re-inserted on every touch would do in V8, but JavaScriptCore's Map iterators step over every
 * deleted slot, so "the oldest entry" there costs more the longer the process runs.)
 */
export class LruMap<V> {
  private readonly nodes = new Map<string, Node<V>>()
  private oldest: Node<V> | undefined
  private newest: Node<V> | undefined

  get size() {
    return this.nodes.size
  }

  /** The value, without changing its place. */
  peek(key: string): V | undefined {
    return this.nodes.get(key)?.value
  }

  /** The value, now the most recently used. */
  get(key: string): V | undefined {
    const node = this.nodes.get(key)
    if (node === undefined) return undefined
    this.unlink(node)
    this.append(node)
    return node.value
  }

  /** Sets the value as the most recently used. */
  set(key: string, value: V): void {
    const node = this.nodes.get(key)
    if (node !== undefined) {
      node.value = value
      this.unlink(node)
      this.append(node)
      return
    }
    const created: Node<V> = { key, value, older: undefined, newer: undefined }
    this.nodes.set(key, created)
    this.append(created)
  }

  delete(key: string): boolean {
    const node = this.nodes.get(key)
    if (node === undefined) return false
    this.unlink(node)
    this.nodes.delete(key)
    return true
  }

  /** The least recently used entry. */
  oldestEntry(): readonly [string, V] | undefined {
    return this.oldest === undefined ? undefined : [this.oldest.key, this.oldest.value]
  }

  private append(node: Node<V>) {
    node.older = this.newest
    node.newer = undefined
    if (this.newest !== undefined) this.newest.newer = node
    this.newest = node
    this.oldest ??= node
  }

  private unlink(node: Node<V>) {
    if (node.older !== undefined) node.older.newer = node.newer
    else this.oldest = node.newer
    if (node.newer !== undefined) node.newer.older = node.older
    else this.newest = node.older
    node.older = undefined
    node.newer = undefined
  }
}
