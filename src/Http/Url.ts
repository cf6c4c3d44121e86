/** `/v1/songs/1` of `/v1/songs/1?x=y`. */
export const pathOf = (url: string) => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/** `/v1/songs/1?x=y` of `http://host/v1/songs/1?x=y`: what the pipeline calls `request.url`, and the cache's key. */
export const pathAndQuery = (url: string) => {
  if (url[0] === "/") return url
  const slash = url.indexOf("/", url.indexOf("//") + 2)
  return slash === -1 ? "/" : url.slice(slash)
}
