// The API as TypeScript types, generated from its OpenAPI document by scripts/portal/api-types.ts (the build rewrites it; do not edit).
/* eslint-disable */
export interface paths {
  "/api/v1/containers": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          stack?: string;
          status?: "created" | "restarting" | "running" | "removing" | "paused" | "exited" | "dead";
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              project: string | null;
              service: string | null;
              image: string;
              state: string;
              status: string;
              health: string | null;
              createdAt: string;
              ports: {
                hostIp: string | null;
                hostPort: number | null;
                containerPort: number;
                protocol: string;
              }[];
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/start": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              project: string | null;
              service: string | null;
              image: string;
              state: string;
              status: string;
              health: string | null;
              createdAt: string;
              ports: {
                hostIp: string | null;
                hostPort: number | null;
                containerPort: number;
                protocol: string;
              }[];
              changed: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/stop": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: {
          timeout?: number;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              project: string | null;
              service: string | null;
              image: string;
              state: string;
              status: string;
              health: string | null;
              createdAt: string;
              ports: {
                hostIp: string | null;
                hostPort: number | null;
                containerPort: number;
                protocol: string;
              }[];
              changed: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/restart": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: {
          timeout?: number;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              project: string | null;
              service: string | null;
              image: string;
              state: string;
              status: string;
              health: string | null;
              createdAt: string;
              ports: {
                hostIp: string | null;
                hostPort: number | null;
                containerPort: number;
                protocol: string;
              }[];
              changed: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/logs": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          tail?: string;
          since?: string;
          timestamps?: "0" | "1" | "true" | "false";
          follow?: "0" | "1" | "true" | "false";
          stream?: "stdout" | "stderr" | "both";
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "text/plain": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/exec": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          csrf?: string;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        101: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        426: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/containers/{id}/stats": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          follow?: "0" | "1" | "true" | "false";
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              at: string;
              cpuPercent: number;
              cpus: number;
              memory: {
                used: number;
                limit: number;
                percent: number;
              };
              network: {
                rxBytes: number;
                txBytes: number;
              };
              blockIo: {
                readBytes: number;
                writeBytes: number;
              };
              pids: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/stats": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              at: string;
              cpuPercent: number;
              memory: {
                used: number;
              };
              network: {
                rxBytes: number;
                txBytes: number;
              };
              blockIo: {
                readBytes: number;
                writeBytes: number;
              };
              containers: {
                id: string;
                name: string;
                at: string;
                cpuPercent: number;
                cpus: number;
                memory: {
                  used: number;
                  limit: number;
                  percent: number;
                };
                network: {
                  rxBytes: number;
                  txBytes: number;
                };
                blockIo: {
                  readBytes: number;
                  writeBytes: number;
                };
                pids: number;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              status: "running" | "partial" | "stopped" | "down" | "failed" | "deploying" | "never-deployed" | "unknown";
              engineError?: string;
              services: {
                name: string;
                declared: boolean;
                containers: {
                  id: string;
                  name: string;
                  state: string;
                  status: string;
                  health: string | null;
                  image: string;
                  createdAt: string;
                  imageId?: string;
                  ports?: {
                    hostIp: string | null;
                    hostPort: number;
                    containerPort: number;
                    protocol: string;
                  }[];
                }[];
              }[];
              template: string | null;
              autoupdate: boolean;
              webhooks: {
                deploy: {
                  enabled: boolean;
                };
                push: {
                  enabled: boolean;
                };
              };
              lastDeploy: {
                jobId: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                finishedAt: string | null;
              } | null;
              lastJob: {
                jobId: string;
                type: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                finishedAt: string | null;
              } | null;
              deployedRevision: number | null;
              deployedAt: string | null;
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              status: "running" | "partial" | "stopped" | "down" | "failed" | "deploying" | "never-deployed" | "unknown";
              engineError?: string;
              services: {
                name: string;
                declared: boolean;
                containers: {
                  id: string;
                  name: string;
                  state: string;
                  status: string;
                  health: string | null;
                  image: string;
                  createdAt: string;
                  imageId?: string;
                  ports?: {
                    hostIp: string | null;
                    hostPort: number;
                    containerPort: number;
                    protocol: string;
                  }[];
                }[];
              }[];
              template: (string | null) | {
                source: string;
                id: string;
                version: string;
                variables: string[];
              };
              autoupdate: boolean;
              webhooks: {
                deploy: {
                  enabled: boolean;
                  recent: {
                    at: string;
                    address: string;
                    jobId: string | null;
                    outcome: string;
                  }[];
                };
                push: {
                  enabled: boolean;
                };
              };
              lastDeploy: {
                jobId: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                finishedAt: string | null;
              } | null;
              lastJob: {
                jobId: string;
                type: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                finishedAt: string | null;
              } | null;
              deployedRevision: number | null;
              deployedAt: string | null;
              createdAt: string;
              updatedAt: string;
              source: {
                [key: string]: unknown;
              } | null;
              release?: {
                number: number;
                services: {
                  service: string;
                  image: string;
                  digest: string | null;
                  origin: "compose" | "update";
                }[];
              } | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: {
          volumes?: "1" | "true" | "0" | "false";
        };
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              removed: string;
              jobId: string;
              volumes: {
                kept: string[];
                removed: string[];
              };
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
              volumes: {
                kept: string[];
                removed: string[];
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        428: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/compose": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              content: string;
              template: string | null;
              origin: {
                kind: "editor" | "upload" | "git";
                path?: string;
                at?: string;
                sha256?: string;
                url?: string;
                branch?: string;
                commit?: string;
                subject?: string | null;
              };
              saved: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": unknown | unknown;
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              status: "running" | "partial" | "stopped" | "down" | "failed" | "deploying" | "never-deployed" | "unknown";
              engineError?: string;
              services: {
                name: string;
                declared: boolean;
                containers: {
                  id: string;
                  name: string;
                  state: string;
                  status: string;
                  health: string | null;
                  image: string;
                  createdAt: string;
                  imageId?: string;
                  ports?: {
                    hostIp: string | null;
                    hostPort: number;
                    containerPort: number;
                    protocol: string;
                  }[];
                }[];
              }[];
              template: (string | null) | {
                source: string;
                id: string;
                version: string;
                variables: string[];
              };
              autoupdate: boolean;
              webhooks: {
                deploy: {
                  enabled: boolean;
                  recent: {
                    at: string;
                    address: string;
                    jobId: string | null;
                    outcome: string;
                  }[];
                };
                push: {
                  enabled: boolean;
                };
              };
              lastDeploy: {
                jobId: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                finishedAt: string | null;
              } | null;
              lastJob: {
                jobId: string;
                type: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                finishedAt: string | null;
              } | null;
              deployedRevision: number | null;
              deployedAt: string | null;
              createdAt: string;
              updatedAt: string;
              source: {
                [key: string]: unknown;
              } | null;
              release?: {
                number: number;
                services: {
                  service: string;
                  image: string;
                  digest: string | null;
                  origin: "compose" | "update";
                }[];
              } | null;
              warnings: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        428: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/validate": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            content: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              valid: boolean;
              errors: {
                rule: string;
                path: string;
                message: string;
              }[];
              warnings: {
                path: string;
                message: string;
              }[];
              services: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/env": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              values: {
                [key: string]: string;
              };
              redacted: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            values: {
              [key: string]: string;
            };
            revision?: number;
            message?: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              values: {
                [key: string]: string;
              };
              redacted: string[];
              warnings: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        428: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/settings": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              template: string | null;
              settings: {
                [key: string]: unknown;
              };
              inputs: {
                [key: string]: unknown;
              } | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            settings: {
              [key: string]: unknown;
            };
            revision?: number;
            message?: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              template: string | null;
              settings: {
                [key: string]: unknown;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        428: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/deploy": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/stop": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/pull": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/autoupdate": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            enabled: boolean;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              autoupdate: boolean;
              schedule: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/revisions": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              revision: number;
              author: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              message: string | null;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/revisions/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              revision: number;
              author: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              message: string | null;
              createdAt: string;
              compose: string;
              values: {
                [key: string]: string;
              };
              redacted: string[];
              template: string | null;
              settings: {
                [key: string]: unknown;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/revisions/{id}/restore": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
          id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              revision: number;
              status: "running" | "partial" | "stopped" | "down" | "failed" | "deploying" | "never-deployed" | "unknown";
              engineError?: string;
              services: {
                name: string;
                declared: boolean;
                containers: {
                  id: string;
                  name: string;
                  state: string;
                  status: string;
                  health: string | null;
                  image: string;
                  createdAt: string;
                  imageId?: string;
                  ports?: {
                    hostIp: string | null;
                    hostPort: number;
                    containerPort: number;
                    protocol: string;
                  }[];
                }[];
              }[];
              template: (string | null) | {
                source: string;
                id: string;
                version: string;
                variables: string[];
              };
              autoupdate: boolean;
              webhooks: {
                deploy: {
                  enabled: boolean;
                  recent: {
                    at: string;
                    address: string;
                    jobId: string | null;
                    outcome: string;
                  }[];
                };
                push: {
                  enabled: boolean;
                };
              };
              lastDeploy: {
                jobId: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                finishedAt: string | null;
              } | null;
              lastJob: {
                jobId: string;
                type: string;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                finishedAt: string | null;
              } | null;
              deployedRevision: number | null;
              deployedAt: string | null;
              createdAt: string;
              updatedAt: string;
              source: {
                [key: string]: unknown;
              } | null;
              release?: {
                number: number;
                services: {
                  service: string;
                  image: string;
                  digest: string | null;
                  origin: "compose" | "update";
                }[];
              } | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/access": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              principal: string;
              role: "viewer" | "operator" | "manager";
              removed?: boolean;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            entries: {
              principal: string;
              role: "viewer" | "operator" | "manager";
            }[];
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              entries: {
                principal: string;
                role: "viewer" | "operator" | "manager";
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/webhooks/deploy": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              token: string;
              url: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              enabled: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stack-templates": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              description: string;
              compose: string;
              inputs: {
                [key: string]: unknown;
              };
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/volumes": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          size?: "1" | "true" | "0" | "false";
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              stack: string;
              stackExists: boolean;
              driver: string;
              createdAt: string | null;
              size: number | null;
              containers: number | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/volumes/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/stacks/{name}/deploy": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: {
          async?: "1" | "true" | "0" | "false";
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/stacks/{name}/jobs/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source/deploy-key": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              publicKey: string;
              fingerprint: string;
              createdAt: string;
              expiresAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              publicKey: string;
              fingerprint: string;
              createdAt: string;
              expiresAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: {
          deploy?: boolean;
        };
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            url: string;
            branch?: string;
            path?: string | null;
            autodeploy?: boolean;
            credentials?: {
              token: string;
              username?: string;
            } | {
              sshKey: string;
            } | null | {
              kind: "deploy-key";
            };
            check?: boolean;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              check?: {
                ok: boolean;
                remoteHead: string | null;
                composePath: string | null;
                error: string | null;
              } | null;
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              check?: {
                ok: boolean;
                remoteHead: string | null;
                composePath: string | null;
                error: string | null;
              } | null;
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              check?: {
                ok: boolean;
                remoteHead: string | null;
                composePath: string | null;
                error: string | null;
              } | null;
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              source: null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source/check": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              remoteHead: {
                commit: string;
                subject: string;
                author: string;
                date: string;
              };
              composePath: string | null;
              deployedCommit: string | null;
              pinnedCommit: string | null;
              changed: boolean;
              error: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source/pin": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: {
          deploy?: boolean;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            commit: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source/unpin": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: {
          deploy?: boolean;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/source/upload": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: {
          path?: string;
          file?: string;
          strip?: number;
          deploy?: boolean;
        };
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/octet-stream": string;
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              kind: "git" | "upload";
              url: string | null;
              branch: string | null;
              path: string | null;
              autodeploy: boolean;
              credentials: {
                kind: "token" | "ssh-key" | "deploy-key";
              } | null;
              pinnedCommit: string | null;
              remoteHead: string | null;
              remoteSubject: string | null;
              deployedCommit: string | null;
              deployedAt: string | null;
              lastCheckedAt: string | null;
              lastError: string | null;
              upload: {
                id: string;
                format: string;
                sha256: string;
                bytes: number;
                files: number;
                at: string;
              } | null;
              lastPush: {
                deliveryId: string | null;
                provider: string;
                event: string;
                ref: string | null;
                commit: string | null;
                outcome: string;
                reason: string | null;
                jobId: string | null;
                at: string;
              } | null;
              updatedAt: string;
              jobId?: string;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
              warnings?: {
                path: string;
                message: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/webhooks/push": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              secret: string;
              url: string;
              contentType: string;
              events: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              enabled: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/webhooks/push/deliveries": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              deliveryId: string | null;
              provider: string;
              event: string;
              ref: string | null;
              afterCommit: string | null;
              address: string;
              outcome: string;
              reason: string | null;
              jobId: string | null;
              receivedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/stacks/{name}/github": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              acknowledged?: boolean;
              ignored?: boolean;
              duplicate?: boolean;
              outcome: string;
              reason: string | null;
              deliveryId: string | null;
              jobId?: string | null;
              attached?: boolean;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              acknowledged?: boolean;
              ignored?: boolean;
              duplicate?: boolean;
              outcome: string;
              reason: string | null;
              deliveryId: string | null;
              jobId?: string | null;
              attached?: boolean;
              job?: {
                id: string;
                type: string;
                resource: string | null;
                status: "queued" | "running" | "succeeded" | "failed" | "canceled";
                done: boolean;
                output: string;
                result: unknown;
                error: string | null;
                actor: {
                  kind: "user" | "webhook" | "github" | "system" | "federation";
                  name?: string;
                  tokenId?: string;
                  address?: string;
                  channel?: "portal" | "mcp";
                };
                createdAt: string;
                startedAt: string | null;
                finishedAt: string | null;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/registries": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              host: string;
              username: string;
              addedAt: string;
              addedBy: {
                kind: string;
                name?: string;
              };
              lastUsedAt: string | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            host: string;
            username: string;
            password: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              host: string;
              username: string;
              addedAt: string;
              addedBy: {
                kind: string;
                name?: string;
              };
              lastUsedAt: string | null;
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              host: string;
              username: string;
              addedAt: string;
              addedBy: {
                kind: string;
                name?: string;
              };
              lastUsedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/registries/{host}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          host: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/edge": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              mode: "managed" | "external";
              state: string;
              running: boolean;
              reason: string | null;
              admin: string;
              binary: string | null;
              pid: number | null;
              restarts: number;
              startedAt: string | null;
              adopted: {
                at: string;
                configuration: "unchanged" | "updated" | null;
              } | null;
              restartNeeded: string | null;
              lastApplied: string | null;
              pushes: number;
              ports: {
                http: number;
                https: number;
              };
              reloads: {
                state: "on" | "off" | "unsupported";
                note: string | null;
              } | null;
              network: string;
              refused: {
                at: string;
                error: string;
                generation: number;
              } | null;
              routes: {
                owner: string;
                hostname: string;
                path: string;
                kind: string;
                target: {
                  [key: string]: unknown;
                };
                https: boolean;
              }[];
              hostnames: {
                hostname: string;
                owner: string;
                claimedAt: string;
                certificate: {
                  name: string;
                  domains: string[];
                  notAfter: string;
                } | null;
              }[];
              certificates: {
                name: string;
                domains: string[];
                notAfter: string;
              }[];
              refusedRoutes: {
                owner: string;
                message: string;
                at: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/edge/links": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              hostname: string;
              owner: string;
              url: string;
              https: boolean;
              routed: boolean;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              targets: {
                [key: string]: unknown;
              };
              repository: {
                default: boolean;
                url: string | null;
                env: string[];
                sshKey: boolean;
                initialized: boolean;
              };
              schedule: string | null;
              nextRun: string | null;
              retention: {
                last?: number;
                hourly?: number;
                daily?: number;
                weekly?: number;
                monthly?: number;
                yearly?: number;
              } | null;
              consistency: "live" | "stop";
              lastRun: {
                jobId: string;
                status: "succeeded" | "failed";
                at: string;
                finishedAt: string;
                snapshot: string | null;
                files: number | null;
                bytesAdded: number | null;
                totalBytes: number | null;
                durationMs: number;
                error: string | null;
                scheduled: boolean;
              } | null;
              snapshots: number | null;
              missed: {
                slot: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/downloads/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/backup-plan": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              services: {
                service: string;
                strategy: string;
                database?: string;
                reason: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              targets: {
                [key: string]: unknown;
              };
              repository: {
                default: boolean;
                url: string | null;
                env: string[];
                sshKey: boolean;
                initialized: boolean;
              };
              schedule: string | null;
              nextRun: string | null;
              retention: {
                last?: number;
                hourly?: number;
                daily?: number;
                weekly?: number;
                monthly?: number;
                yearly?: number;
              } | null;
              consistency: "live" | "stop";
              lastRun: {
                jobId: string;
                status: "succeeded" | "failed";
                at: string;
                finishedAt: string;
                snapshot: string | null;
                files: number | null;
                bytesAdded: number | null;
                totalBytes: number | null;
                durationMs: number;
                error: string | null;
                scheduled: boolean;
              } | null;
              snapshots: number | null;
              missed: {
                slot: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            targets: {
              stacks?: string[];
              sites?: boolean;
              database?: boolean;
              databases?: unknown[];
              [key: string]: unknown;
            };
            repository?: {
              url: string;
              env?: {
                [key: string]: string;
              };
              sshKey?: string;
            };
            password?: string;
            schedule?: string | null;
            retention?: {
              last?: number;
              hourly?: number;
              daily?: number;
              weekly?: number;
              monthly?: number;
              yearly?: number;
            } | null;
            consistency?: "live" | "stop";
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              targets: {
                [key: string]: unknown;
              };
              repository: {
                default: boolean;
                url: string | null;
                env: string[];
                sshKey: boolean;
                initialized: boolean;
              };
              schedule: string | null;
              nextRun: string | null;
              retention: {
                last?: number;
                hourly?: number;
                daily?: number;
                weekly?: number;
                monthly?: number;
                yearly?: number;
              } | null;
              consistency: "live" | "stop";
              lastRun: {
                jobId: string;
                status: "succeeded" | "failed";
                at: string;
                finishedAt: string;
                snapshot: string | null;
                files: number | null;
                bytesAdded: number | null;
                totalBytes: number | null;
                durationMs: number;
                error: string | null;
                scheduled: boolean;
              } | null;
              snapshots: number | null;
              missed: {
                slot: string;
              } | null;
              createdAt: string;
              updatedAt: string;
              password?: string;
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              targets: {
                [key: string]: unknown;
              };
              repository: {
                default: boolean;
                url: string | null;
                env: string[];
                sshKey: boolean;
                initialized: boolean;
              };
              schedule: string | null;
              nextRun: string | null;
              retention: {
                last?: number;
                hourly?: number;
                daily?: number;
                weekly?: number;
                monthly?: number;
                yearly?: number;
              } | null;
              consistency: "live" | "stop";
              lastRun: {
                jobId: string;
                status: "succeeded" | "failed";
                at: string;
                finishedAt: string;
                snapshot: string | null;
                files: number | null;
                bytesAdded: number | null;
                totalBytes: number | null;
                durationMs: number;
                error: string | null;
                scheduled: boolean;
              } | null;
              snapshots: number | null;
              missed: {
                slot: string;
              } | null;
              createdAt: string;
              updatedAt: string;
              password?: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              removed: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/run": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/snapshots": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              shortId: string;
              time: string;
              hostname: string;
              sources: string[];
              kind: "files" | "database";
              stack: string | null;
              service: string | null;
              strategy: string | null;
              database: string | null;
              file: string | null;
              release: string | null;
              verifiedAt: string | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/files": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          snapshot?: string;
          path?: string;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              path: string;
              type: string;
              size: number | null;
              mtime: string;
              permissions: string | null;
              snapshot: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/restore": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            snapshot?: string;
            paths?: string[];
            target: string;
            stack?: string;
            service?: string;
            overwrite?: boolean;
            upload?: string;
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/uploads": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/octet-stream": string;
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              bytes: number;
              expiresAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/backups/{name}/verify": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          status?: "open" | "acknowledged" | "resolved" | "unresolved" | "all";
          kind?: string;
          severity?: "info" | "warning" | "critical";
          resource?: string;
          acknowledged?: boolean;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              kind: string;
              severity: "info" | "warning" | "critical";
              resource: string | null;
              subject?: string;
              message: string;
              details: {
                [key: string]: unknown;
              };
              status: "open" | "acknowledged" | "resolved";
              count: number;
              firstSeen: string;
              lastSeen: string;
              resolvedAt: string | null;
              acknowledgedAt: string | null;
              acknowledgedBy: {
                kind: string;
                name?: string;
              } | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/{id}/acknowledge": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              kind: string;
              severity: "info" | "warning" | "critical";
              resource: string | null;
              subject?: string;
              message: string;
              details: {
                [key: string]: unknown;
              };
              status: "open" | "acknowledged" | "resolved";
              count: number;
              firstSeen: string;
              lastSeen: string;
              resolvedAt: string | null;
              acknowledgedAt: string | null;
              acknowledgedBy: {
                kind: string;
                name?: string;
              } | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/channels": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              kind: string;
              config: {
                [key: string]: unknown;
              };
              secretFields: string[];
              events: string[];
              minSeverity: "info" | "warning" | "critical";
              failing: boolean;
              consecutiveFailures: number;
              failingSince: string | null;
              lastError: string | null;
              lastDelivery: {
                at: string;
                delivered: boolean;
                error?: string;
              } | null;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            kind: string;
            config: {
              [key: string]: unknown;
            };
            events?: string[];
            minSeverity?: "info" | "warning" | "critical";
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              kind: string;
              config: {
                [key: string]: unknown;
              };
              secretFields: string[];
              events: string[];
              minSeverity: "info" | "warning" | "critical";
              failing: boolean;
              consecutiveFailures: number;
              failingSince: string | null;
              lastError: string | null;
              lastDelivery: {
                at: string;
                delivered: boolean;
                error?: string;
              } | null;
              createdAt: string;
            } & {
              secret?: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/channels/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              removed: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/test": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            channelId?: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              results: {
                channelId: string;
                delivered: boolean;
                error?: string;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/tasks": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              stack: string;
              service: string;
              command: string[] | string;
              schedule: string;
              timezone: string;
              mode: "exec" | "run";
              overlap: "forbid" | "queue" | "replace";
              timeout: string;
              enabled: boolean;
              declared: boolean;
              revision: number;
              nextRunAt: string | null;
              lastSuccessAt: string | null;
              lastRunAt: string | null;
              lastRun: {
                id: string;
                job: string | null;
                trigger: "schedule" | "manual";
                status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
                reason?: string;
                exitCode?: number;
                startedAt: string | null;
                endedAt: string | null;
                createdAt: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            service: string;
            command: string[] | string;
            schedule: string;
            timezone?: string;
            mode?: "exec" | "run";
            overlap?: "forbid" | "queue" | "replace";
            timeout?: string;
            enabled?: boolean;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              stack: string;
              service: string;
              command: string[] | string;
              schedule: string;
              timezone: string;
              mode: "exec" | "run";
              overlap: "forbid" | "queue" | "replace";
              timeout: string;
              enabled: boolean;
              declared: boolean;
              revision: number;
              nextRunAt: string | null;
              lastSuccessAt: string | null;
              lastRunAt: string | null;
              lastRun: {
                id: string;
                job: string | null;
                trigger: "schedule" | "manual";
                status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
                reason?: string;
                exitCode?: number;
                startedAt: string | null;
                endedAt: string | null;
                createdAt: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/tasks/{task}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          task: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              stack: string;
              service: string;
              command: string[] | string;
              schedule: string;
              timezone: string;
              mode: "exec" | "run";
              overlap: "forbid" | "queue" | "replace";
              timeout: string;
              enabled: boolean;
              declared: boolean;
              revision: number;
              nextRunAt: string | null;
              lastSuccessAt: string | null;
              lastRunAt: string | null;
              lastRun: {
                id: string;
                job: string | null;
                trigger: "schedule" | "manual";
                status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
                reason?: string;
                exitCode?: number;
                startedAt: string | null;
                endedAt: string | null;
                createdAt: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
          task: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            service: string;
            command: string[] | string;
            schedule: string;
            timezone?: string;
            mode?: "exec" | "run";
            overlap?: "forbid" | "queue" | "replace";
            timeout?: string;
            enabled?: boolean;
            revision?: number;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              stack: string;
              service: string;
              command: string[] | string;
              schedule: string;
              timezone: string;
              mode: "exec" | "run";
              overlap: "forbid" | "queue" | "replace";
              timeout: string;
              enabled: boolean;
              declared: boolean;
              revision: number;
              nextRunAt: string | null;
              lastSuccessAt: string | null;
              lastRunAt: string | null;
              lastRun: {
                id: string;
                job: string | null;
                trigger: "schedule" | "manual";
                status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
                reason?: string;
                exitCode?: number;
                startedAt: string | null;
                endedAt: string | null;
                createdAt: string;
              } | null;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
          task: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/tasks/{task}/run": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          task: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/tasks/{task}/runs": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
          task: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              job: string | null;
              trigger: "schedule" | "manual";
              status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
              reason?: string;
              exitCode?: number;
              startedAt: string | null;
              endedAt: string | null;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/tasks/{task}/runs/{run}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          task: string;
          run: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              job: string | null;
              trigger: "schedule" | "manual";
              status: "queued" | "running" | "succeeded" | "failed" | "skipped" | "timed-out";
              reason?: string;
              exitCode?: number;
              startedAt: string | null;
              endedAt: string | null;
              createdAt: string;
              output: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/metrics/series": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query: {
          scope: string;
          metric: string;
          from?: string;
          to?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              metric: string;
              unit: string;
              step: number;
              from: string;
              to: string;
              points: unknown[][];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/rules": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              metric: string;
              op: ">" | "<";
              threshold: number;
              for: string;
              recover?: number;
              severity: "critical" | "warning" | "info";
              cooldown?: string;
              channels?: string[];
              id: string;
              kind: string;
              builtIn: boolean;
              enabled: boolean;
              description?: string;
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            scope: string;
            metric: string;
            op: ">" | "<";
            threshold: number;
            for: string;
            recover?: number;
            severity: "critical" | "warning" | "info";
            cooldown?: string;
            channels?: string[];
            enabled?: boolean;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              metric: string;
              op: ">" | "<";
              threshold: number;
              for: string;
              recover?: number;
              severity: "critical" | "warning" | "info";
              cooldown?: string;
              channels?: string[];
              id: string;
              kind: string;
              builtIn: boolean;
              enabled: boolean;
              description?: string;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/rules/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              metric: string;
              op: ">" | "<";
              threshold: number;
              for: string;
              recover?: number;
              severity: "critical" | "warning" | "info";
              cooldown?: string;
              channels?: string[];
              id: string;
              kind: string;
              builtIn: boolean;
              enabled: boolean;
              description?: string;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            scope: string;
            metric: string;
            op: ">" | "<";
            threshold: number;
            for: string;
            recover?: number;
            severity: "critical" | "warning" | "info";
            cooldown?: string;
            channels?: string[];
            enabled?: boolean;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              metric: string;
              op: ">" | "<";
              threshold: number;
              for: string;
              recover?: number;
              severity: "critical" | "warning" | "info";
              cooldown?: string;
              channels?: string[];
              id: string;
              kind: string;
              builtIn: boolean;
              enabled: boolean;
              description?: string;
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/silences": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              until: string;
              reason: string;
              id: string;
              createdAt: string;
              createdBy: {
                kind: string;
                name?: string;
              };
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            scope: string;
            until: string;
            reason: string;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              scope: string;
              until: string;
              reason: string;
              id: string;
              createdAt: string;
              createdBy: {
                kind: string;
                name?: string;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/alerts/silences/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              hostnames: string[];
              source: {
                url: string;
                branch: string;
                path: string;
                build: {
                  image: string;
                  command: string[];
                  output?: string;
                } | null;
                credentials: {
                  kind: string;
                } | null;
              } | null;
              version: number;
              lastDeploy: {
                at: string;
                version: number;
                commit: string | null;
              } | null;
              lastError: string | null;
              syncedCommit: string | null;
              draft: {
                files: number;
                changedAt: string;
                basedOn: number;
                previewUrl: string | null;
              } | null;
              previewUrl: string | null;
              webhook: {
                enabled: boolean;
              };
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              hostnames: string[];
              source: {
                url: string;
                branch: string;
                path: string;
                build: {
                  image: string;
                  command: string[];
                  output?: string;
                } | null;
                credentials: {
                  kind: string;
                } | null;
              } | null;
              version: number;
              lastDeploy: {
                at: string;
                version: number;
                commit: string | null;
              } | null;
              lastError: string | null;
              syncedCommit: string | null;
              draft: {
                files: number;
                changedAt: string;
                basedOn: number;
                previewUrl: string | null;
              } | null;
              previewUrl: string | null;
              webhook: {
                enabled: boolean;
              };
              createdAt: string;
              updatedAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            hostnames: string[];
            source?: {
              url: string;
              branch?: string;
              path?: string;
              credentials?: {
                token: string;
                username?: string;
              } | {
                sshKey: string;
              } | null;
              build?: {
                image: string;
                command: string[];
                output?: string;
              };
            } | null;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              hostnames: string[];
              source: {
                url: string;
                branch: string;
                path: string;
                build: {
                  image: string;
                  command: string[];
                  output?: string;
                } | null;
                credentials: {
                  kind: string;
                } | null;
              } | null;
              version: number;
              lastDeploy: {
                at: string;
                version: number;
                commit: string | null;
              } | null;
              lastError: string | null;
              syncedCommit: string | null;
              draft: {
                files: number;
                changedAt: string;
                basedOn: number;
                previewUrl: string | null;
              } | null;
              previewUrl: string | null;
              webhook: {
                enabled: boolean;
              };
              createdAt: string;
              updatedAt: string;
            } & {
              previewToken?: string;
              jobId?: string;
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              hostnames: string[];
              source: {
                url: string;
                branch: string;
                path: string;
                build: {
                  image: string;
                  command: string[];
                  output?: string;
                } | null;
                credentials: {
                  kind: string;
                } | null;
              } | null;
              version: number;
              lastDeploy: {
                at: string;
                version: number;
                commit: string | null;
              } | null;
              lastError: string | null;
              syncedCommit: string | null;
              draft: {
                files: number;
                changedAt: string;
                basedOn: number;
                previewUrl: string | null;
              } | null;
              previewUrl: string | null;
              webhook: {
                enabled: boolean;
              };
              createdAt: string;
              updatedAt: string;
            } & {
              previewToken?: string;
              jobId?: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              removed: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/content": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: {
          draft?: "1" | "true" | "0" | "false";
          strip?: number;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/octet-stream": string;
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              version: number;
              fileCount: number;
              bytes: number;
            } | {
              draft: {
                files: number;
                changedAt: string;
                basedOn: number;
                previewUrl: string | null;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/versions": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              number: number;
              at: string;
              by: string;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              from: string;
              commit: string | null;
              restoredFrom: number | null;
              fileCount: number;
              bytes: number;
              published: boolean;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/restore": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            version: number;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              version: number;
              fileCount: number;
              bytes: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/files": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              path: string;
              size: number;
              sha256: string;
              contentType: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/file": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query: {
          path: string;
          draft?: "1" | "true" | "0" | "false";
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "*/*": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/draft/files": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              path: string;
              size: number;
              sha256: string;
              contentType: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            files?: {
              [key: string]: {
                content: string;
                encoding?: "utf8" | "base64";
              };
            };
            delete?: string[];
            base?: {
              [key: string]: string | null;
            };
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              files: number;
              changedAt: string;
              basedOn: number;
              previewUrl: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/draft/publish": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              version: number;
              fileCount: number;
              bytes: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/draft": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              draft: null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/draft/token": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              previewToken: string;
              previewUrl: string | null;
              username: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/check": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              jobId: string;
              status: string;
              attached: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sites/{name}/webhooks/check": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              token: string;
              url: string;
              statusUrl: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              enabled: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/sites/{name}/check": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              jobId: string;
              status: string;
              attached: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/sites/{name}/jobs/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/sites/{name}/status": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              version: number;
              lastDeploy: {
                at: string;
                version: number;
                commit: string | null;
              } | null;
              lastError: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/certificates": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              domains: string[];
              source: "acme" | "upload";
              origin: "request" | "upload" | "auto";
              challenge: "http-01" | "dns-01" | null;
              issuer: string | null;
              serial: string | null;
              notBefore: string | null;
              notAfter: string | null;
              status: "pending" | "valid" | "expiring" | "expired" | "failed";
              lastError: string | null;
              lastAttemptAt: string | null;
              renewAfter: string | null;
              nextAttemptAt: string | null;
              usedBy: string[];
              createdAt: string;
              updatedAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/certificates/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              domains: string[];
              source: "acme" | "upload";
              origin: "request" | "upload" | "auto";
              challenge: "http-01" | "dns-01" | null;
              issuer: string | null;
              serial: string | null;
              notBefore: string | null;
              notAfter: string | null;
              status: "pending" | "valid" | "expiring" | "expired" | "failed";
              lastError: string | null;
              lastAttemptAt: string | null;
              renewAfter: string | null;
              nextAttemptAt: string | null;
              usedBy: string[];
              createdAt: string;
              updatedAt: string;
            } & {
              chain: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/certificates/request": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name?: string;
            domains: string[];
            challenge?: "http-01" | "dns-01";
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              jobId: string;
              id: string;
              type: string;
              status: string;
              done: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/certificates/upload": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            certificate: string;
            key: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              domains: string[];
              source: "acme" | "upload";
              origin: "request" | "upload" | "auto";
              challenge: "http-01" | "dns-01" | null;
              issuer: string | null;
              serial: string | null;
              notBefore: string | null;
              notAfter: string | null;
              status: "pending" | "valid" | "expiring" | "expired" | "failed";
              lastError: string | null;
              lastAttemptAt: string | null;
              renewAfter: string | null;
              nextAttemptAt: string | null;
              usedBy: string[];
              createdAt: string;
              updatedAt: string;
            } & {
              chain: string | null;
            };
          };
        };
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              domains: string[];
              source: "acme" | "upload";
              origin: "request" | "upload" | "auto";
              challenge: "http-01" | "dns-01" | null;
              issuer: string | null;
              serial: string | null;
              notBefore: string | null;
              notAfter: string | null;
              status: "pending" | "valid" | "expiring" | "expired" | "failed";
              lastError: string | null;
              lastAttemptAt: string | null;
              renewAfter: string | null;
              nextAttemptAt: string | null;
              usedBy: string[];
              createdAt: string;
              updatedAt: string;
            } & {
              chain: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/releases": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              number: number;
              createdAt: string;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              jobId: string | null;
              kind: "deploy" | "rollback" | "update";
              rolledBackTo: number | null;
              revision: number;
              commit: string | null;
              services: {
                service: string;
                image: string;
                digest: string | null;
                imageId: string | null;
                policy: "digest" | "patch" | "minor" | "major" | "none";
                origin: "compose" | "update";
              }[];
              kept: boolean;
              changes: {
                revision: {
                  from: number;
                  to: number;
                } | null;
                added: string[];
                removed: string[];
                changed: {
                  service: string;
                  from: {
                    image: string;
                    digest: string | null;
                    imageId: string | null;
                  };
                  to: {
                    image: string;
                    digest: string | null;
                    imageId: string | null;
                  };
                }[];
                commit: {
                  from: string | null;
                  to: string | null;
                } | null;
                compose: {
                  changed: boolean;
                  services: string[];
                };
                variables: string[];
              };
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/rollback": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            release?: number;
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/updates/check": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/updates": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              checkedAt: string | null;
              jobId: string | null;
              services: {
                service: string;
                image: string;
                policy: "digest" | "patch" | "minor" | "major" | "none";
                origin: "compose" | "update";
                tag: string | null;
                digest: string | null;
                candidate: {
                  tag: string;
                  digest: string;
                } | null;
                available: boolean;
                error: string | null;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/update": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            services?: string[];
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/images": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              tags: string[];
              digests: string[];
              size: number;
              created: string;
              usedBy: {
                stacks: string[];
                releases: {
                  stack: string;
                  number: number;
                }[];
                sites: string[];
              };
              containers: number;
              kept: boolean;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/images/prune": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              jobId: string;
              id: string;
              type: string;
              status: string;
              done: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/previews": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              enabled: boolean;
              hostname: string | null;
              maxActive: number;
              idleDays: number;
              fromForks: boolean;
              variables: {
                [key: string]: string;
              };
              token: {
                enabled: boolean;
              };
              previews: {
                key: string;
                pullRequest: number | null;
                ref: string | null;
                commit: string | null;
                deployedCommit: string | null;
                urls: string[];
                status: string;
                createdAt: string;
                updatedAt: string;
                deployedAt: string | null;
                lastJob: {
                  id: string;
                  type: string;
                  status: string;
                  error: string | null;
                } | null;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            enabled: boolean;
            hostname?: string | null;
            maxActive?: number;
            idleDays?: number;
            fromForks?: boolean;
            variables?: {
              [key: string]: string;
            };
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              stack: string;
              enabled: boolean;
              hostname: string | null;
              maxActive: number;
              idleDays: number;
              fromForks: boolean;
              variables: {
                [key: string]: string;
              };
              token: {
                enabled: boolean;
              };
              previews: {
                key: string;
                pullRequest: number | null;
                ref: string | null;
                commit: string | null;
                deployedCommit: string | null;
                urls: string[];
                status: string;
                createdAt: string;
                updatedAt: string;
                deployedAt: string | null;
                lastJob: {
                  id: string;
                  type: string;
                  status: string;
                  error: string | null;
                } | null;
              }[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/previews/{key}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          key: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            ref?: string;
            commit?: string;
            variables?: {
              [key: string]: string;
            };
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          key: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/webhooks/preview": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              token: string;
              url: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              enabled: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/stacks/{name}/previews/{key}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          key: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            ref?: string;
            commit?: string;
            variables?: {
              [key: string]: string;
            };
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          key: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          q?: string;
          category?: string;
          source?: string;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              source: string;
              id: string;
              version: string;
              name: string;
              categories: string[];
              description: string;
              logo: string | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates/{source}/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          source: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              source: string;
              id: string;
              version: string;
              name: string;
              categories: string[];
              description: string;
              logo: string | null;
              links: {
                [key: string]: string;
              };
              instructions: string | null;
              variables: {
                name: string;
                type: "string" | "secret" | "hostname" | "port" | "email" | "enum";
                description: string;
                generate?: string;
                default?: string;
                pattern?: string;
                range?: number[];
                values?: string[];
                required: boolean;
                secret: boolean;
                binds: string[];
              }[];
              compose: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates/{source}/{id}/deploy": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          source: string;
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            stack: string;
            variables: {
              [key: string]: string | number | boolean;
            };
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
              stack: string;
              template: {
                source: string;
                id: string;
                version: string;
              };
              instructions: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates/sources": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              kind: "bundled" | "folder" | "url" | "git";
              format: "dockwright" | "dokploy" | "portainer";
              url?: string;
              git?: {
                url: string;
                ref: string;
                path?: string;
              };
              sha256?: string;
              commit?: string | null;
              templates: number;
              error: string | null;
              invalid: {
                template: string | null;
                path: string;
                message: string;
              }[];
              fetchedAt: string | null;
              checkedAt?: string | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            url?: string;
            git?: {
              url: string;
              ref: string;
              path?: string;
            };
            sha256?: string;
            format?: "dockwright" | "dokploy" | "portainer";
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              kind: "bundled" | "folder" | "url" | "git";
              format: "dockwright" | "dokploy" | "portainer";
              url?: string;
              git?: {
                url: string;
                ref: string;
                path?: string;
              };
              sha256?: string;
              commit?: string | null;
              templates: number;
              error: string | null;
              invalid: {
                template: string | null;
                path: string;
                message: string;
              }[];
              fetchedAt: string | null;
              checkedAt?: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates/sources/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/templates/sources/{name}/refresh": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              kind: "bundled" | "folder" | "url" | "git";
              format: "dockwright" | "dokploy" | "portainer";
              url?: string;
              git?: {
                url: string;
                ref: string;
                path?: string;
              };
              sha256?: string;
              commit?: string | null;
              templates: number;
              error: string | null;
              invalid: {
                template: string | null;
                path: string;
                message: string;
              }[];
              fetchedAt: string | null;
              checkedAt?: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/template/update": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              from: string;
              to: string;
              compose: string;
              conflicts: {
                line: number;
                current: string[];
                base: string[];
                template: string[];
              }[];
              variables: {
                added: string[];
                removed: string[];
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            revision?: number;
            compose?: string;
            variables?: {
              [key: string]: string;
            };
          };
        };
      };
      responses: {
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
              jobId: string;
              attached?: boolean;
              from: string;
              to: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/template/export": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          id?: string;
          name?: string;
          version?: string;
          description?: string;
        };
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              version: string;
              template: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/nodes": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              hostname: string;
              role: "manager" | "worker";
              leader: boolean;
              availability: string;
              state: string;
              address: string | null;
              engineVersion: string | null;
              resources: {
                cpus: number;
                memoryBytes: number;
              };
              tasks: {
                running: number;
                total: number;
              };
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/stacks/{name}/services/{service}/logs": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          tail?: string;
          timestamps?: boolean;
        };
        header?: never;
        path: {
          name: string;
          service: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "text/plain": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/plugins": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              version: string | null;
              description: string | null;
              source: {
                kind: "built-in";
              } | {
                kind: "package";
                package: string;
                version: string | null;
                path: string | null;
              } | {
                kind: "path";
                path: string;
              };
              enabled: boolean;
              reason: string | null;
              requires: string[];
              services: string[];
              scopes: string[];
              routes: number;
              jobTypes: string[];
              extensionPoints: {
                offered: {
                  name: string;
                  resource: string | null;
                  contributions: number;
                }[];
                used: string[];
              };
              migrations: {
                files: number;
                applied: number;
                latest: string | null;
              } | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/openapi.json": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              openapi: string;
              info: {
                title: string;
                version: string;
              };
              paths: {
                [key: string]: unknown;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/me": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              user: {
                name: string;
                role: string;
              };
              token: {
                id: string;
                name: string;
                expiresAt: string | null;
              } | null;
              session?: {
                expiresAt: string;
              };
              scopes: string[];
              stacks?: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/overview": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              summary: {
                [key: string]: unknown;
              };
              attention: {
                severity: string;
                kind: string;
                source: string;
                message: string;
                resource?: string;
                since?: string;
              }[];
              host: {
                memory: {
                  totalBytes: number;
                  freeBytes: number;
                };
                disk: {
                  path: string;
                  totalBytes: number;
                  freeBytes: number;
                } | null;
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/jobs": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          status?: "queued" | "running" | "succeeded" | "failed" | "canceled";
          type?: string;
          resource?: string;
          internal?: boolean;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/jobs/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/jobs/{id}/wait": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          timeout?: number;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/jobs/{id}/output": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          follow?: "1" | "true" | "0" | "false";
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "text/plain": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/jobs/{id}/cancel": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              type: string;
              resource: string | null;
              status: "queued" | "running" | "succeeded" | "failed" | "canceled";
              done: boolean;
              output: string;
              result: unknown;
              error: string | null;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              createdAt: string;
              startedAt: string | null;
              finishedAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/activity": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          resource?: string;
          actor?: "user" | "webhook" | "github" | "system" | "federation";
          action?: string;
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: number;
              at: string;
              actor: {
                kind: "user" | "webhook" | "github" | "system" | "federation";
                name?: string;
                tokenId?: string;
                address?: string;
                channel?: "portal" | "mcp";
              };
              action: string;
              resource: string | null;
              result: string;
              detail: unknown;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/docs": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "text/html": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/docs/{file}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          file: "swagger-ui.css" | "swagger-ui-bundle.js" | "start.js";
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "*/*": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/mcp": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": unknown;
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": unknown;
          };
        };
        202: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": unknown;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        406: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/healthz": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              ok: true;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/readyz": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              ready: boolean;
              parts: {
                [key: string]: {
                  ok: boolean;
                  state: string;
                  detail?: string;
                };
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/metrics": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "text/plain": string;
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/session": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              user: {
                name: string;
                role: string;
              };
              csrf: string;
              expiresAt: string;
              scopes: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            username: string;
            password: string;
            code?: string;
            newPassword?: string;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              user: {
                name: string;
                role: string;
              };
              csrf: string;
              expiresAt: string;
              scopes: string[];
              recoveryCodes?: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/sessions": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              ended: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/me/password": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            current: string;
            password: string;
          };
        };
      };
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/me/totp": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              enrolled: boolean;
              enrolledAt: string | null;
              recoveryCodesLeft: number;
              required: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              secret: string;
              otpauthUri: string;
              qrCode: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            password: string;
          };
        };
      };
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/me/totp/confirm": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            code: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              recoveryCodes: string[];
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/tokens": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              name: string;
              prefix: string;
              scopes: string[];
              expiresAt: string | null;
              revokedAt: string | null;
              lastUsedAt: string | null;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            scopes: string[];
            expiresInDays?: number;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              token: string;
              name: string;
              scopes: string[];
              expiresAt: string | null;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/tokens/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              role: "viewer" | "operator" | "admin";
              teams: string[];
              disabled: boolean;
              passwordSet: boolean;
              mustChangePassword: boolean;
              totpEnrolled: boolean;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            role: "viewer" | "operator" | "admin";
            teams?: string[];
            password?: string;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              role: "viewer" | "operator" | "admin";
              teams: string[];
              disabled: boolean;
              passwordSet: boolean;
              mustChangePassword: boolean;
              totpEnrolled: boolean;
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/users/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              role: "viewer" | "operator" | "admin";
              teams: string[];
              disabled: boolean;
              passwordSet: boolean;
              mustChangePassword: boolean;
              totpEnrolled: boolean;
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            role?: "viewer" | "operator" | "admin";
            teams?: string[];
            disabled?: boolean;
            password?: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              role: "viewer" | "operator" | "admin";
              teams: string[];
              disabled: boolean;
              passwordSet: boolean;
              mustChangePassword: boolean;
              totpEnrolled: boolean;
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    trace?: never;
  };
  "/api/v1/users/{name}/totp": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/teams": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          limit?: number;
          cursor?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              description: string;
              members: string[];
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            name: string;
            description?: string;
            members?: string[];
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              description: string;
              members: string[];
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/teams/{name}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              description: string;
              members: string[];
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/teams/{name}/members": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            user: string;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              name: string;
              description: string;
              members: string[];
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/teams/{name}/members/{user}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
          user: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/federation": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              issuer: string;
              audience: string;
              subject: string;
              claims: {
                [key: string]: string;
              };
              scopes: string[];
              stacks: string[] | null;
              ttl: string;
              createdBy: string;
              createdAt: string;
            }[];
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            issuer: string;
            audience: string;
            subject: string;
            claims?: {
              [key: string]: string;
            };
            scopes: string[];
            stacks?: string[];
            ttl?: string;
          };
        };
      };
      responses: {
        201: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              id: string;
              issuer: string;
              audience: string;
              subject: string;
              claims: {
                [key: string]: string;
              };
              scopes: string[];
              stacks: string[] | null;
              ttl: string;
              createdBy: string;
              createdAt: string;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/federation/{id}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post?: never;
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        204: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/token": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              access_token: string;
              issued_token_type: "urn:ietf:params:oauth:token-type:access_token";
              token_type: "Bearer";
              expires_in: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/auth/oidc/{provider}": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: {
          link?: "1" | "true";
          csrf?: string;
        };
        header?: never;
        path: {
          provider: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        302: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/auth/oidc/{provider}/callback": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          provider: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        302: {
          headers: { [name: string]: unknown };
          content?: never;
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/oidc/providers": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              providers: {
                name: string;
                label: string;
                url: string;
              }[];
              enforceSso: boolean;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/auth/oidc/providers/{name}/test": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          name: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            claims?: {
              [key: string]: unknown;
            };
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              issuer: string;
              authorizationEndpoint: string | null;
              tokenEndpoint: string | null;
              jwksUri: string | null;
              pkceS256: boolean;
              grants?: {
                role: string | null;
                teams: string[];
                groups: string[];
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        404: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        502: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  "/api/v1/settings": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              revision: number;
              settings: {
                [key: string]: unknown;
              };
              sources: {
                [key: string]: "default" | "file" | "env" | "portal";
              };
              restartNeeded: string[];
              about: {
                [key: string]: {
                  label: string;
                  group: string;
                  secret: boolean;
                  live: boolean;
                  description?: string;
                  schema: unknown;
                };
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch: {
      parameters: {
        query?: never;
        header?: {
          "If-Match"?: string;
          "If-None-Match"?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              revision: number;
              settings: {
                [key: string]: unknown;
              };
              sources: {
                [key: string]: "default" | "file" | "env" | "portal";
              };
              restartNeeded: string[];
              about: {
                [key: string]: {
                  label: string;
                  group: string;
                  secret: boolean;
                  live: boolean;
                  description?: string;
                  schema: unknown;
                };
              };
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        409: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        412: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        422: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        428: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    trace?: never;
  };
  "/api/v1/settings/outbound/test": {
    parameters: { query?: never; header?: never; path?: never; cookie?: never };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          "application/json": {
            host: string;
            port: number;
            allow?: string[];
            allowHostnames?: boolean | string[];
          };
        };
      };
      responses: {
        200: {
          headers: { [name: string]: unknown };
          content: {
            "application/json": {
              host: string;
              port: number;
              allowed: boolean;
              reason?: string;
              address?: string;
              connected: boolean;
              ms?: number;
            };
          };
        };
        400: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        401: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        403: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        413: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        415: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        429: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        503: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
        507: {
          headers: { [name: string]: unknown };
          content: {
            "application/problem+json": components["schemas"]["Problem"];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}

export interface components {
  schemas: {
    Problem: {
      type: string;
      title: string;
      status: number;
      detail: string;
      instance?: string;
      errors?: unknown[];
      jobId?: string;
      currentRevision?: number;
    };
  };
}
