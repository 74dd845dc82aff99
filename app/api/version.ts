/** The API's version, reported by /health and the OpenAPI document. Bump with the contract. */
export const API_VERSION = '1.0.0';
