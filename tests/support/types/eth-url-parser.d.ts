/** eth-url-parser ships no types: the part of its API the tests use (an independent EIP-681 parser). */
declare module 'eth-url-parser' {
  export interface ParsedEthereumUrl {
    scheme: string;
    prefix?: string;
    target_address: string;
    chain_id?: string;
    function_name?: string;
    parameters?: Record<string, string>;
  }
  export function parse(uri: string): ParsedEthereumUrl;
}
